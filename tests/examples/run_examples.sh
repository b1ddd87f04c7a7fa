#!/usr/bin/env bash
# Adopting tracewire as a user would: installs it into a temporary prefix with
# install/install.sh, then builds both examples (examples/c, examples/cpp) with each build
# system (and the thread-pool example, examples/threadpool) — their Makefile (pkg-config, the C program with `cc`), their CMakeLists.txt
# (find_package; shared and static) and the separate Bazel workspace examples/WORKSPACE
# (local_repository + tracewire_dependencies(), offline) — runs every program traced into a
# directory, and checks its trace with the installed `tracewire`.
#
# Prints "PASS <check>" or "FAIL <check>: <why>" per check, the time of each step, and
# ends with "examples: N passed, N failed". Exits 1 if a check failed.
#
# usage: tests/examples/run_examples.sh [BAZEL_FLAGS for install/install.sh...]
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/tracewire-examples.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
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
  echo "examples: ${passed} passed, ${failed} failed"
  [ "$failed" -eq 0 ]
  exit
}

# Shared libraries a self-contained tracewire must not make a program load.
forbidden_needed() {
  readelf -d "$1" | grep -E 'NEEDED' | grep -E 'absl|zstd|crypto|ssl' || true
}
needed_of() {
  readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' '
}

# ---- Install -----------------------------------------------------------------------------
step "install into a temporary prefix: install/install.sh $prefix $*"
if ! "$repo/install/install.sh" "$prefix" "$@" >"$work/install.log" 2>&1; then
  fail "install" "$(tail -n 30 "$work/install.log")"
  finish
fi
pass "install"
tw=$prefix/bin/tracewire
version=$(pkg-config --modversion tracewire 2>/dev/null)
major=${version%%.*}

check_installed_files() {
  local f
  for f in bin/tracewire include/tracewire/tracewire.h include/tracewire/tracewire.hpp \
    lib/libtracewire.a "lib/libtracewire.so.$version" "lib/libtracewire.so.$major" \
    lib/libtracewire.so lib/pkgconfig/tracewire.pc lib/cmake/tracewire/tracewireConfig.cmake \
    lib/cmake/tracewire/tracewireConfigVersion.cmake; do
    [ -e "$prefix/$f" ] || { echo "missing $prefix/$f"; return 1; }
  done
}
check "installed files" check_installed_files

check_version() {
  local printed
  printed=$("$tw" --version) || return 1
  [ -n "$version" ] || { echo "pkg-config --modversion tracewire printed nothing"; return 1; }
  [[ "$printed" == "tracewire version $version "* ]] ||
    { echo "tracewire --version: '$printed', tracewire.pc: $version"; return 1; }
  grep -q "set(PACKAGE_VERSION \"$version\")" "$prefix/lib/cmake/tracewire/tracewireConfigVersion.cmake" ||
    { echo "the CMake version file does not say $version"; return 1; }
}
check "one version in tracewire --version, tracewire.pc and the CMake package" check_version

check_static_library() {
  local globals needed n
  # Vague-linkage (unique) symbols of inline variables stay global by their nature.
  globals=$(nm -g --defined-only "$prefix/lib/libtracewire.a" | awk 'NF == 3 && $2 != "u"' |
    grep -v ' tw_' || true)
  [ -z "$globals" ] || { echo "defines more than tw_*: $(head -n 5 <<<"$globals")"; return 1; }
  # A C program linked with cc against it needs nothing but the C library (and the loader).
  cat >"$work/minimal.c" <<'C'
#include <tracewire/tracewire.h>
int main(int argc, const char **argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(argv);
  return tw_cmd_exit(argc - 1);
}
C
  # shellcheck disable=SC2046  # pkg-config's flags are separate words
  cc -o "$work/minimal" "$work/minimal.c" $(pkg-config --cflags --libs tracewire) || return 1
  needed=$(needed_of "$work/minimal")
  for n in $needed; do
    case $n in libc.so.6 | libm.so.6 | ld-linux-x86-64.so.2) ;; *)
      echo "a C program linked with libtracewire.a needs $n (needed: $needed)"
      return 1
      ;;
    esac
  done
}
check "libtracewire.a: self-contained, defines only tw_*, a C program links it with cc" \
  check_static_library

check_shared_library() {
  local lib=$prefix/lib/libtracewire.so.$version soname exported bad
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ "$soname" = "libtracewire.so.$major" ] || { echo "SONAME '$soname'"; return 1; }
  [ "$(readlink "$prefix/lib/libtracewire.so.$major")" = "libtracewire.so.$version" ] ||
    { echo "libtracewire.so.$major does not point to libtracewire.so.$version"; return 1; }
  bad=$(readelf -d "$lib" | grep NEEDED | grep -E 'zstd|crypto|ssl' || true)
  [ -z "$bad" ] || { echo "libtracewire.so needs $bad"; return 1; }
  exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^tw_' || true)
  [ -z "$exported" ] || { echo "exports more than tw_*: $(head -n 5 <<<"$exported")"; return 1; }
}
check "libtracewire.so: SONAME, zstd and SHA-1 embedded, exports only tw_*" check_shared_library

check_command() {
  local bad
  bad=$(forbidden_needed "$tw")
  [ -z "$bad" ] || { echo "$bad"; return 1; }
  if "$tw" dump "$work" >/dev/null 2>&1; then
    echo "tracewire dump of a directory without traces exited 0"
    return 1
  fi
}
check "tracewire: no Abseil/zstd/OpenSSL shared library; dump of an empty DIR fails" check_command

# ---- The programs and their traces -------------------------------------------------------
printf 'one\ntwo\nthree\n' >"$work/three.txt"
printf 'alpha beta\nbeta gamma\n' >"$work/words1.txt"
printf 'beta delta\n' >"$work/words2.txt"

# run_traced NAME PROGRAM EXPECTED_EXIT ARGS...: runs PROGRAM traced into a new directory
# ($traces) and validates the trace; the EVENT output is left in $events.
run_traced() {
  local name=$1 program=$2 expected=$3
  shift 3
  traces=$(mktemp -d "$work/traces.XXXXXX")
  events=$traces.events
  local bad
  bad=$(forbidden_needed "$program")
  [ -z "$bad" ] || { echo "$name needs $bad"; return 1; }
  TRACEWIRE=$traces "$program" "$@" >"$traces.out" 2>"$traces.err"
  local code=$?
  [ "$code" -eq "$expected" ] || { echo "$name exited $code, not $expected"; cat "$traces.err"; return 1; }
  "$tw" validate "$traces" || return 1
  "$tw" decode --format=event "$traces" >"$events" || return 1
  # Tracing off: the same output, no trace.
  local off=$work/off.out
  env -u TRACEWIRE "$program" "$@" >"$off" 2>/dev/null
  cmp -s "$off" "$traces.out" || { echo "$name prints something else untraced"; return 1; }
}
expect_event() {
  grep -q -- "$1" "$events" || { echo "no $1 in the trace:"; head -n 40 "$events"; return 1; }
}

check_linecount() {
  run_traced linecount "$1" 1 "$work/three.txt" "$work/missing.txt" || return 1
  grep -q '^       3 .*three.txt$' "$traces.out" || { cat "$traces.out"; return 1; }
  expect_event '"event":"start"' && expect_event '"name":"linecount"' &&
    expect_event '"category":"linecount","label":"file"' &&
    expect_event '"key":"lines","value":"3"' && expect_event '"event":"error"' &&
    expect_event '"event":"timer","sid"' && expect_event '"event":"exit".*"code":1'
}
check_wordfreq() {
  run_traced wordfreq "$1" 0 "$work/words1.txt" "$work/words2.txt" || return 1
  grep -q '^3 beta$' "$traces.out" || { cat "$traces.out"; return 1; }
  expect_event '"exe":"1.0.0"' && expect_event '"thread":"th01:count"' &&
    expect_event '"thread":"th02:count"' && expect_event '"label":"scan-files"' &&
    expect_event '"event":"th_timer"' && expect_event '"key":"distinct","value":"4"' &&
    expect_event '"event":"exit".*"code":0'
}

check_threadpool() {
  run_traced threadpool "$1" 0 300 || return 1
  grep -q '^300 requests, checksum ' "$traces.out" || { cat "$traces.out"; return 1; }
  # Threads are numbered as they start, in whatever order the scheduler runs them: the
  # trace holds one acceptor, four workers and one writer, numbered 01 to 06 once each.
  local threads
  threads=$(grep -oE '"thread":"th[0-9]+:[a-z]+"' "$events" | sort -u | sed -E 's/.*"(th[0-9]+:[a-z]+)"/\1/')
  [ "$(printf '%s\n' "$threads" | sed 's/:.*//' | sort -u | tr '\n' ' ')" = "th01 th02 th03 th04 th05 th06 " ] &&
    [ "$(printf '%s\n' "$threads" | sed 's/.*://' | sort | uniq -c | tr '\n' ' ' | tr -s ' ')" = \
      " 1 acceptor 4 worker 1 writer " ] ||
    { echo "threads in the trace: $threads"; return 1; }
  # Tasks and gauges are tracewire's own events: the git formats leave them out with
  # --git-exact; the Chrome export has one flow per request.
  local chrome=$traces.json
  "$tw" decode --format=chrome "$traces" -o "$chrome" || return 1
  [ "$(grep -c '"ph":"s"' "$chrome")" -eq 300 ] || { echo "not 300 task flows"; return 1; }
  [ "$(grep -c '"ph":"C","ts"' "$chrome")" -ge 1800 ] || { echo "too few gauge points"; return 1; }
}

# ---- Makefile (pkg-config) ---------------------------------------------------------------
step "Makefiles (pkg-config)"
for example in c:linecount cpp:wordfreq threadpool:threadpool; do
  dir=${example%%:*} program=${example#*:}
  mkdir -p "$work/make/$dir"
  cp "$repo/examples/$dir/"* "$work/make/$dir/"
  if out=$(make -C "$work/make/$dir" 2>&1); then
    pass "make $dir"
    check "make $dir: $program runs traced" "check_$program" "$work/make/$dir/$program"
  else
    fail "make $dir" "$out"
  fi
done

# ---- CMake (find_package) ----------------------------------------------------------------
step "CMake (find_package), static and shared"
for example in c:linecount cpp:wordfreq threadpool:threadpool; do
  dir=${example%%:*} program=${example#*:}
  for mode in OFF ON; do
    build=$work/cmake/$dir-shared-$mode
    if out=$(cmake -S "$repo/examples/$dir" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DTRACEWIRE_SHARED=$mode 2>&1 && cmake --build "$build" 2>&1); then
      pass "cmake $dir (TRACEWIRE_SHARED=$mode)"
      check "cmake $dir (TRACEWIRE_SHARED=$mode): $program runs traced" "check_$program" \
        "$build/$program"
    else
      fail "cmake $dir (TRACEWIRE_SHARED=$mode)" "$(tail -n 30 <<<"$out")"
    fi
  done
done

# ---- Bazel: a separate workspace using tracewire as an external repository --------------
step "Bazel workspace examples/ (local_repository + tracewire_dependencies())"
bazel_flags=(--experimental_repository_disable_download --repository_cache= --distdir=)
if [ "${CI:-}" = "true" ]; then bazel_flags+=(--noshow_progress --curses=no --color=no); fi
if out=$(cd "$repo/examples" &&
  bazel build --symlink_prefix=/ "${bazel_flags[@]}" //c:linecount //cpp:wordfreq \
    //threadpool:threadpool 2>&1); then
  pass "bazel build (examples workspace)"
  bazel_bin=$(cd "$repo/examples" && bazel info bazel-bin 2>/dev/null)
  check "bazel c: linecount runs traced" check_linecount "$bazel_bin/c/linecount"
  check "bazel cpp: wordfreq runs traced" check_wordfreq "$bazel_bin/cpp/wordfreq"
  check "bazel threadpool: threadpool runs traced" check_threadpool \
    "$bazel_bin/threadpool/threadpool"
else
  fail "bazel build (examples workspace)" "$(tail -n 30 <<<"$out")"
fi
# The examples workspace has its own Bazel server; stop it.
(cd "$repo/examples" && bazel shutdown >/dev/null 2>&1)

finish
