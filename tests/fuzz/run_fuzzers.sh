#!/usr/bin/env bash
# The fuzzing step of the test suite (tests/run_all.sh runs it; it can run alone):
#   1. builds the libFuzzer targets of tests/fuzz with clang, ASan and UBSan
#      (bazel build --config=fuzz);
#   2. replays every committed input of each target, its seed corpus (corpus/<target>) and
#      every input that ever crashed it (regressions/<target>);
#   3. fuzzes each target, starting from those inputs, for what is left of SECONDS seconds
#      (default 48, or $TRACEWIRE_FUZZ_SECONDS) after its replay, at least a fifth of them:
#      six targets, about 290 s in all. libFuzzer counts its own reading of the inputs
#      within that time.
# Any crash, sanitizer report or failed check fails the target; the input that caused it is
# saved under $TRACEWIRE_FUZZ_ARTIFACTS (default /tmp/tracewire-fuzz.XXXXXX) and named in
# the log with the command that reproduces it. Prints one line per target with the
# executions and coverage reached, and ends with "fuzz: N passed, N failed".
# Extra arguments go to `bazel build`.
#
# --build-only does step 1 alone; --no-build does steps 2 and 3 with the fuzzers already
# built, from $TRACEWIRE_FUZZ_BIN (their directory; by default asked of `bazel info`) and
# runs no Bazel command, so it can run beside another Bazel command (tests/run_all.sh runs
# it in the background while the arm64 tests and the examples run).
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=all
case "${1:-}" in
  --build-only) mode=build; shift ;;
  --no-build) mode=run; shift ;;
esac
seconds=${1:-${TRACEWIRE_FUZZ_SECONDS:-48}}
[ "$#" -gt 0 ] && shift
targets=(reader_validate reader import splitter raw go_import)

bazel_flags=(--config=fuzz)
if [ "${CI:-}" = "true" ]; then
  bazel_flags+=(--noshow_progress --curses=no --color=no)
fi
labels=()
for target in "${targets[@]}"; do labels+=("//tests/fuzz:${target}_fuzzer"); done
if [ "$mode" != run ]; then
  echo "== fuzz: bazel build ${bazel_flags[*]} ${labels[*]}"
  if ! bazel build "${bazel_flags[@]}" "$@" "${labels[@]}"; then
    echo "fuzz: 0 passed, ${#targets[@]} failed (the fuzz targets did not build)"
    exit 1
  fi
fi
bin=${TRACEWIRE_FUZZ_BIN:-$(bazel info "${bazel_flags[@]}" bazel-bin 2>/dev/null)/tests/fuzz}
if [ "$mode" = build ]; then
  echo "fuzz: the fuzz targets are in $bin"
  exit 0
fi
artifacts=${TRACEWIRE_FUZZ_ARTIFACTS:-$(mktemp -d /tmp/tracewire-fuzz.XXXXXX)}
mkdir -p "$artifacts"

passed=0
failed=0
for target in "${targets[@]}"; do
  fuzzer=$bin/${target}_fuzzer
  corpus=tests/fuzz/corpus/$target
  regressions=tests/fuzz/regressions/$target
  mkdir -p "$artifacts/$target/new"
  log=$artifacts/$target/fuzz.log
  inputs=("$corpus")
  [ -d "$regressions" ] && inputs+=("$regressions")
  # 2. Replay: every committed input once (-runs=0 runs the inputs and stops).
  replay_log=$artifacts/$target/replay.log
  replay_start=$(date +%s)
  replay_ok=true
  "$fuzzer" -runs=0 -artifact_prefix="$artifacts/$target/" "${inputs[@]}" >"$replay_log" 2>&1 ||
    replay_ok=false
  # LeakSanitizer's own failure (its tracer, which stops every thread to scan their stacks,
  # crashed: "Tracer caught signal"), not a finding: no leak report, no input to blame. It
  # is said, and the replay runs once more, with LeakSanitizer's thread log; a second
  # failure of any kind fails the target.
  if ! $replay_ok && grep -q "Tracer caught signal" "$replay_log" &&
      ! grep -qE "ERROR: (AddressSanitizer|LeakSanitizer: detected)|runtime error:|Test unit written to" \
        "$replay_log"; then
    echo "fuzz $target: LeakSanitizer's tracer crashed in the replay (not a finding; log:" \
      "$replay_log.1); replaying again"
    mv "$replay_log" "$replay_log.1"
    replay_ok=true
    LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}verbosity=1:log_threads=1 \
      "$fuzzer" -runs=0 -artifact_prefix="$artifacts/$target/" "${inputs[@]}" >"$replay_log" 2>&1 ||
      replay_ok=false
  fi
  if ! $replay_ok; then
    echo "fuzz $target: FAILED replaying the committed inputs; log: $replay_log"
    grep -E "ERROR:|runtime error:|_fuzzer: |Test unit written to|Running: " "$replay_log" | tail -n 8
    failed=$((failed + 1))
    continue
  fi
  replayed=$(sed -n 's/^INFO: seed corpus: files: \([0-9]*\).*/\1/p' "$replay_log" | tail -n 1)
  fuzz_seconds=$((seconds - ($(date +%s) - replay_start)))
  [ "$fuzz_seconds" -lt $(((seconds + 4) / 5)) ] && fuzz_seconds=$(((seconds + 4) / 5))
  # 3. Fuzz, new inputs going to a scratch directory (the committed ones stay as they are).
  "$fuzzer" -max_total_time="$fuzz_seconds" -print_final_stats=1 -entropic=0 -max_len=4096 \
    -timeout=60 -rss_limit_mb=2560 -artifact_prefix="$artifacts/$target/" \
    "$artifacts/$target/new" "${inputs[@]}" >"$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\)/\1/p' "$log" | tail -n 1)
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)
  summary="${replayed:-?} inputs replayed, ${runs:-?} executions in ${fuzz_seconds} s (${rate:-?}/s), ${coverage:-no coverage line}"
  if [ "$status" -eq 0 ]; then
    echo "fuzz $target: passed: $summary"
    passed=$((passed + 1))
  else
    echo "fuzz $target: FAILED (exit $status): $summary; log: $log"
    grep -E "ERROR:|runtime error:|_fuzzer: " "$log" | head -n 5
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    if [ -n "$crash" ]; then
      echo "  input saved as $crash; reproduce with: $fuzzer $crash"
      echo "  (or under gcc: bazel run --config=asan //tests/fuzz:${target}_fuzzer -- $crash)"
    fi
    failed=$((failed + 1))
  fi
done
echo "fuzz: artifacts and logs in $artifacts"
echo "fuzz: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
