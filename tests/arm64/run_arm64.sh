#!/usr/bin/env bash
# tracewire on arm64 Linux, tested on an x86-64 host: the arm64 build runs under
# qemu-aarch64 (user-mode emulation; binfmt_misc is not needed, every arm64 program is
# started as `qemu-aarch64 -L /usr/aarch64-linux-gnu PROGRAM`).
#
#   1. install/install.sh --arch=aarch64 installs into a temporary prefix; the C, C++ and
#      thread-pool examples are cross-built against it with aarch64-linux-gnu-gcc/g++ and
#      pkg-config, run under qemu (the thread pool with CPU samples), and their traces are
#      validated by the x86-64 `tracewire`.
#   2. The demo (with its traced child) and the thread pool, recorded under qemu, give the
#      same events as the same programs recorded on x86-64 (times, pids, sids, thread
#      order and addresses aside): regions, data, tasks, flows, gauges, timers, counters.
#   3. The arm64 `tracewire`, run under qemu, decodes the arm64 traces exactly as the
#      x86-64 one does (event, perf and folded formats, CPU samples symbolized from the
#      arm64 ELF files on both).
#   4. The CPU samples of the arm64 thread pool are attributed to its functions.
#   5. The thread pool cross-built with CMake (install/aarch64-linux-gnu.cmake and
#      find_package(tracewire) of the arm64 prefix) runs traced under qemu.
#
# Prints "PASS <check>" or "FAIL <check>: <why>" per check, the time of each step, and
# ends with "arm64: N passed, N failed". Exits 1 if a check failed.
#
# usage: tests/arm64/run_arm64.sh [BAZEL_FLAGS...]   (default: -c fastbuild)
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
work=$(mktemp -d /tmp/tracewire-arm64.XXXXXX)
trap 'rm -rf "$work"' EXIT
flags=("$@")
if [ ${#flags[@]} -eq 0 ]; then
  flags=(-c fastbuild)
fi
sysroot=/opt/tracewire/aarch64-sysroot
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
# The arm64 `tracewire` loads libdw (to symbolize) from the sysroot.
qemu_tracewire=("${qemu[@]}" -E "LD_LIBRARY_PATH=$sysroot/usr/lib/aarch64-linux-gnu:$sysroot/lib/aarch64-linux-gnu")
passed=0
failed=0

pass() {
  echo "PASS $1"
  passed=$((passed + 1))
}
fail() {
  echo "FAIL $1: $2"
  failed=$((failed + 1))
}
# check NAME COMMAND...: passes if COMMAND succeeds; its output is shown if it fails.
check() {
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then
    pass "$name"
  else
    fail "$name" "$(tail -n 20 <<<"$out")"
  fi
}
step_start=-1
step() {
  if [ "$step_start" -ge 0 ]; then echo "== $step_name took $((SECONDS - step_start)) s"; fi
  step_name=$1
  step_start=$SECONDS
  [ -n "$1" ] && echo "== $1"
}
finish() {
  step ""
  echo "arm64: ${passed} passed, ${failed} failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}

step "install/install.sh --arch=aarch64 ${flags[*]}"
prefix=$work/prefix
if ! install/install.sh --arch=aarch64 "$prefix" "${flags[@]}" >"$work/install.log" 2>&1; then
  fail "install --arch=aarch64" "$(tail -n 20 "$work/install.log")"
  finish
fi
check "installed tracewire is arm64" bash -c "file -L '$prefix/bin/tracewire' | grep -q 'ARM aarch64'"
check "installed libtracewire.so is arm64" bash -c "file -L '$prefix/lib/libtracewire.so' | grep -q 'ARM aarch64'"
check "installed libtracewire.a is arm64" bash -c \
  "aarch64-linux-gnu-objdump -f '$prefix/lib/libtracewire.a' | grep -q 'architecture: aarch64'"

step "the x86-64 tracewire, demo and thread pool"
bazel build "${flags[@]}" //tools:tracewire //examples/demo //examples/threadpool >"$work/build.log" 2>&1 ||
  { fail "x86-64 build" "$(tail -n 20 "$work/build.log")"; finish; }
host_bin=$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)
tracewire=$host_bin/tools/tracewire
bazel build "${flags[@]}" --config=aarch64 //examples/demo >"$work/build.log" 2>&1 ||
  { fail "arm64 demo build" "$(tail -n 20 "$work/build.log")"; finish; }
arm_bin=$(bazel info "${flags[@]}" --config=aarch64 bazel-bin 2>/dev/null)

step "the examples cross-built against the arm64 prefix, run under qemu"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
tw_flags=$(pkg-config --cflags --libs tracewire)
check "cross-build linecount (C)" aarch64-linux-gnu-gcc -O2 -o "$work/linecount" examples/c/linecount.c $tw_flags
check "cross-build wordfreq (C++)" aarch64-linux-gnu-g++ -O2 -o "$work/wordfreq" examples/cpp/wordfreq.cc $tw_flags
check "cross-build threadpool" aarch64-linux-gnu-g++ -O2 -g -fno-omit-frame-pointer -o "$work/threadpool" \
  examples/threadpool/threadpool.cc $tw_flags -pthread
for program in linecount wordfreq; do
  mkdir -p "$work/$program.traces"
  check "$program runs traced under qemu" env TRACEWIRE="$work/$program.traces" \
    "${qemu[@]}" "$work/$program" examples/c/linecount.c
  check "$program's arm64 trace validates on x86-64" "$tracewire" validate "$work/$program.traces"
done

# The CMake package: the thread pool cross-built with CMake (a toolchain file for
# aarch64-linux-gnu, find_package of the installed arm64 tracewire), run under qemu.
cmake_build=$work/cmake-threadpool
mkdir -p "$work/cmake-pool.arm"
check "cmake cross-build threadpool (find_package tracewire)" bash -c "
  cmake -S examples/threadpool -B '$cmake_build' -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_TOOLCHAIN_FILE='$repo/install/aarch64-linux-gnu.cmake' \
    -DCMAKE_PREFIX_PATH='$prefix' && cmake --build '$cmake_build' &&
  file -L '$cmake_build/threadpool' | grep -q 'ARM aarch64'"
check "cmake-built threadpool runs traced under qemu" env TRACEWIRE="$work/cmake-pool.arm" \
  "${qemu[@]}" "$cmake_build/threadpool" 300
check "cmake-built threadpool: the arm64 trace validates on x86-64" "$tracewire" validate \
  "$work/cmake-pool.arm"

# Events of a trace as comparable lines: the event format without times (timers' too),
# pids, sids, thread ids, addresses, the parent processes (qemu's) and the gauges' values
# (the queue depths a run's thread scheduling gives), sorted (threads interleave
# differently from run to run).
normalize() {
  "$@" | python3 -c '
import json, re, sys
drop = {"time", "t_abs", "t_rel", "sid", "pid", "child_id", "t_start", "t_end",
        "frames", "address", "addresses", "stack", "build_id", "exe",
        "t_min", "t_max", "t_total", "ancestry"}
out = []
for line in sys.stdin:
    event = json.loads(line)
    if event.get("argv"):
        event["argv"][0] = event["argv"][0].rsplit("/", 1)[-1]  # built in different places
    if event.get("event") == "gauge":
        event.pop("value", None)
    for key in list(event):
        if key in drop or key.endswith("_ns") or key.endswith("_us"):
            del event[key]
    text = json.dumps(event, sort_keys=True)
    text = re.sub(r"th[0-9]+:", "th:", text)        # thread numbering follows start order
    text = re.sub(r"0x[0-9a-f]+", "0x", text)
    text = re.sub(r"/tmp/tracewire-arm64\.[^\"]*/", "/", text)
    out.append(text)
print("\n".join(sorted(out)))'
}

step "the demo and the thread pool: the same events on arm64 (qemu) as on x86-64"
mkdir -p "$work/demo.x86" "$work/demo.arm" "$work/pool.x86" "$work/pool.arm"
(cd "$work" && TRACEWIRE="$work/demo.x86" "$host_bin/examples/demo/demo" >/dev/null 2>&1)
(cd "$work" && TRACEWIRE="$work/demo.arm" DEMO_EXEC_PREFIX="${qemu[*]}" \
  "${qemu[@]}" "$arm_bin/examples/demo/demo" >/dev/null 2>&1)
check "demo: two arm64 traces (the program and its child)" \
  test "$(ls "$work/demo.arm" | wc -l)" -eq 2
check "demo: the arm64 traces validate on x86-64" "$tracewire" validate "$work/demo.arm"
normalize "$tracewire" decode --format=event "$work/demo.x86" >"$work/demo.x86.events"
normalize "$tracewire" decode --format=event "$work/demo.arm" >"$work/demo.arm.events"
check "demo: the same events on arm64 as on x86-64" diff "$work/demo.x86.events" "$work/demo.arm.events"
TRACEWIRE="$work/pool.x86" TRACEWIRE_CPU_PROFILE=1000 "$host_bin/examples/threadpool/threadpool" 300 >/dev/null
check "threadpool runs under qemu with CPU samples" env TRACEWIRE="$work/pool.arm" \
  TRACEWIRE_CPU_PROFILE=1000 "${qemu[@]}" "$work/threadpool" 300
check "threadpool: the arm64 trace validates on x86-64" "$tracewire" validate "$work/pool.arm"
normalize "$tracewire" decode --format=event "$work/pool.x86" | grep -v '"event": "cpu_sample' >"$work/pool.x86.events"
normalize "$tracewire" decode --format=event "$work/pool.arm" | grep -v '"event": "cpu_sample' >"$work/pool.arm.events"
check "threadpool: the same events (tasks, flows, gauges, regions) on arm64 as on x86-64" \
  diff "$work/pool.x86.events" "$work/pool.arm.events"

step "the arm64 tracewire under qemu decodes as the x86-64 one does"
for format in event perf folded; do
  for trace in demo.arm pool.arm; do
    "$tracewire" decode --format=$format "$work/$trace" >"$work/$trace.$format.x86" 2>&1
    "${qemu_tracewire[@]}" "$prefix/bin/tracewire" decode --format=$format "$work/$trace" \
      >"$work/$trace.$format.arm" 2>&1
    if [ "$format" = folded ]; then
      # Stacks with equal counts come in no fixed order: compare the sets of lines.
      sort -o "$work/$trace.$format.x86" "$work/$trace.$format.x86"
      sort -o "$work/$trace.$format.arm" "$work/$trace.$format.arm"
    fi
    check "$trace --format=$format: the same output from both" \
      diff "$work/$trace.$format.x86" "$work/$trace.$format.arm"
  done
done

step "the arm64 thread pool's CPU samples, symbolized on x86-64"
folded=$work/pool.arm.folded.x86
check "threadpool: CPU samples were recorded" test -s "$folded"
# Every sample's stack starts at the program's entry (the frame chain was walked to the
# bottom) and names the thread's function: main's lambdas, the worker threads' bodies.
check "threadpool: samples are attributed to the program's functions" python3 - "$folded" <<'PY'
import sys
lines = [l.rsplit(" ", 1) for l in open(sys.argv[1]) if l.strip()]
total = sum(int(n) for _, n in lines)
in_program = sum(int(n) for stack, n in lines if "main" in stack)
print(f"{in_program} of {total} samples in stacks through main or its threads' lambdas")
sys.exit(0 if total > 0 and in_program * 2 >= total else 1)
PY

finish
