#!/usr/bin/env bash
# Runs the whole tracewire test suite with Bazel — every test, then the reader and format
# tests, the runtime's CPU-profile test and diff's statistics again under ASan+UBSan
# (--config=asan), the runtime tests under ThreadSanitizer (--config=tsan), the clock tests
# with the generic clock forced (--config=genericclock); then it builds the fuzz targets
# (clang + libFuzzer, ASan+UBSan) and starts tests/fuzz/run_fuzzers.sh in the background (it
# replays every committed input and fuzzes each target for $TRACEWIRE_FUZZ_SECONDS, default
# 48) while the format, runtime and reader tests cross-built for arm64 run under
# qemu-aarch64 (--config=aarch64), tests/arm64/run_arm64.sh checks the arm64 install,
# examples, demo and CPU samples under qemu, decoded on both architectures, and
# tests/examples/run_examples.sh installs tracewire into a temporary prefix and builds and
# runs the examples with make, CMake and a separate Bazel workspace (one count per check).
# Prints "N passed, N failed" (GoogleTest cases from Bazel's test.xml files, plus one per
# fuzz target, arm64 check and example check) as its last line.
# Exits non-zero if any test failed or if no test ran. Extra arguments go to every
# `bazel test`.
set -uo pipefail
cd "$(dirname "$0")/.."
install/install_deps.sh || exit 1
# Go 1.22 and 1.23 (bookworm-backports), which //tests/go_import:go_oracle_test checks the
# Go trace reader against.
install/install_go.sh || exit 1
# The arm64 cross compiler, qemu and the arm64 sysroot, installed in the background while the
# first suites build and run (mostly downloads); the arm64 suite waits for it.
aarch64_deps_log=$(mktemp /tmp/tracewire-aarch64-deps.XXXXXX)
install/install_deps_aarch64.sh >"$aarch64_deps_log" 2>&1 &
aarch64_deps_pid=$!
# The consumers the output is checked with (DevTools trace engine, speedscope, the
# OpenTelemetry schema), pinned by tests/consumers/package-lock.json.
if ! npm ci --ignore-scripts --no-audit --no-fund --prefix tests/consumers >/dev/null; then
  echo "tracewire: npm ci in tests/consumers failed; the consumer tests will fail" >&2
fi

# Perfetto's trace processor (tests/perfetto:trace_processor_test) is found in shared/ beside
# the repository; TRACEWIRE_TRACE_PROCESSOR, if set, names another one.
common_flags=(--test_output=errors --test_summary=short --test_env=TRACEWIRE_TRACE_PROCESSOR)
if [ "${CI:-}" = "true" ]; then
  common_flags+=(--noshow_progress --curses=no --color=no)
fi

# The script's own arguments, given to every `bazel test` (e.g. --nocache_test_results).
extra_test_args=("$@")
passed=0
failed=0
overall_status=0
log=$(mktemp /tmp/tracewire-test-output.XXXXXX)
trap 'rm -f "$log" "$aarch64_deps_log"' EXIT

# run_suite LABEL BAZEL_FLAGS... -- TARGETS...
run_suite() {
  local label=$1
  shift
  local flags=()
  while [ "$1" != "--" ]; do
    flags+=("$1")
    shift
  done
  shift
  echo "== $label: bazel test ${flags[*]} $*"
  local started=$SECONDS
  bazel test "${common_flags[@]}" "${extra_test_args[@]}" "${flags[@]}" "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  echo "== $label took $((SECONDS - started)) s"
  local testlogs
  testlogs=$(bazel info "${flags[@]}" bazel-testlogs 2>/dev/null)
  local suite_failed=0
  # Count the cases of this run's test targets (cached ones included) from their
  # test.xml; stale files of targets that did not run are ignored.
  local target path xml line tests failures errors disabled bad
  for target in $(grep -oE '^//[^ ]+' "$log" | sort -u); do
    path=${target#//}
    xml="$testlogs/${path/://}/test.xml"
    [ -f "$xml" ] || continue
    # GoogleTest writes <testsuites tests="T" failures="F" disabled="D" errors="E" ...>.
    line=$(grep -o '<testsuites [^>]*>' "$xml" | head -n 1)
    tests=$(sed -n 's/.* tests="\([0-9]*\)".*/\1/p' <<<"$line")
    failures=$(sed -n 's/.* failures="\([0-9]*\)".*/\1/p' <<<"$line")
    errors=$(sed -n 's/.* errors="\([0-9]*\)".*/\1/p' <<<"$line")
    disabled=$(sed -n 's/.* disabled="\([0-9]*\)".*/\1/p' <<<"$line")
    tests=${tests:-0} failures=${failures:-0} errors=${errors:-0} disabled=${disabled:-0}
    bad=$((failures + errors))
    passed=$((passed + tests - disabled - bad))
    suite_failed=$((suite_failed + bad))
  done
  # A target that failed without a failing case in its test.xml (a crash, a timeout, a
  # build failure) still counts as one failure.
  while read -r target; do
    path=${target#//}
    xml="$testlogs/${path/://}/test.xml"
    if ! grep -qE '<testsuites [^>]*failures="[1-9]' "$xml" 2>/dev/null; then
      suite_failed=$((suite_failed + 1))
    fi
  done < <(grep -E '^//[^ ]+ .*(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log" | grep -oE '^//[^ ]+')
  if [ "$status" -ne 0 ] && [ "$suite_failed" -eq 0 ]; then
    suite_failed=1
  fi
  failed=$((failed + suite_failed))
  if [ "$status" -ne 0 ]; then
    overall_status=$status
  fi
}

run_suite "all tests" -- //...
run_suite "reader and format under ASan+UBSan" --config=asan -- //tests/reader/... //tests/format/... \
  //tests/runtime:cpu_profile_test //tests/diff:diff_stats_test //tests/diff:diff_compare_test
# The runtime and the reader's parallel decoding (its workers hand jobs over under a mutex).
run_suite "runtime and parallel decoding under ThreadSanitizer" --config=tsan -- //tests/runtime/... \
  //tests/reader:parallel_decoding_test
# The third clock: CLOCK_MONOTONIC through the vDSO (architectures without a counter), forced
# on x86-64.
run_suite "generic clock on x86-64" --config=genericclock -- //tests/runtime:clock_test \
  //tests/runtime:api_test //tests/runtime:tasks_test

# Fuzzing: one count per target ("fuzz: N passed, N failed"). The fuzz targets are built
# here; the fuzzers (one at a time, each for a fixed wall-clock time) then run in the
# background beside the arm64 tests and the examples, which need the second core more than
# the fuzzers need it, and their counts are taken at the end.
echo "== fuzz targets: tests/fuzz/run_fuzzers.sh"
fuzz_log=$(mktemp /tmp/tracewire-fuzz-output.XXXXXX)
trap 'rm -f "$log" "$fuzz_log" "$aarch64_deps_log"' EXIT
fuzz_pid=
fuzz_build_started=$SECONDS
if tests/fuzz/run_fuzzers.sh --build-only 2>&1 | tee "$log"; then
  echo "== fuzz targets built in $((SECONDS - fuzz_build_started)) s"
  fuzz_bin=$(sed -n 's/^fuzz: the fuzz targets are in //p' "$log" | tail -n 1)
  echo "== fuzz: the fuzzers run in the background (tests/fuzz/run_fuzzers.sh --no-build)"
  TRACEWIRE_FUZZ_BIN=$fuzz_bin tests/fuzz/run_fuzzers.sh --no-build >"$fuzz_log" 2>&1 &
  fuzz_pid=$!
else
  cp "$log" "$fuzz_log"
fi

# arm64: the unit tests cross-built (--config=aarch64) and run under qemu-aarch64, then the
# installed arm64 tracewire, examples, demo and CPU samples (tests/arm64/run_arm64.sh).
# Left out under emulation: see ARM64_LEFT_OUT.
ARM64_TESTS=(//tests/format/... //tests/runtime/... //tests/reader/...)
# - robustness tests and fuzz-style loops (tests/reader:robustness_test, salvage_test,
#   tests/runtime:robustness_test): minutes of decoding under emulation, nothing
#   architecture-specific that the other reader tests do not cover;
# - tests/runtime:fault_test and tests/reader:symbolizer_test start another arm64 program
#   (the fault program, the tracewire command) by exec, which needs binfmt_misc;
# - tests/format:format_doc_test regenerates docs/format.md's examples (byte-identical on
#   both architectures; the x86-64 run checks them);
# - tests/runtime:published_file_test: past its 300 s limit under emulation (its cases wait
#   on FIFOs and full pipes with write timeouts, and qemu slows every step);
# - the case AncestryTest.CmdStartRecordsTheParentChainByDefault: under emulation the
#   process's own name in /proc is qemu-aarch64's, not the test's.
ARM64_CASES_LEFT_OUT=--gtest_filter=-AncestryTest.CmdStartRecordsTheParentChainByDefault
ARM64_LEFT_OUT=(-//tests/reader:robustness_test -//tests/reader:salvage_test
  -//tests/runtime:robustness_test -//tests/runtime:fault_test -//tests/reader:symbolizer_test
  -//tests/format:format_doc_test -//tests/runtime:published_file_test)
if wait "$aarch64_deps_pid"; then
  cat "$aarch64_deps_log"
  run_suite "arm64 under qemu-aarch64" --config=aarch64 --test_arg="$ARM64_CASES_LEFT_OUT" \
    -- "${ARM64_TESTS[@]}" -- "${ARM64_LEFT_OUT[@]}"
  echo "== arm64: tests/arm64/run_arm64.sh -c fastbuild"
  arm64_started=$SECONDS
  tests/arm64/run_arm64.sh -c fastbuild 2>&1 | tee "$log"
  arm64_status=${PIPESTATUS[0]}
  echo "== arm64: tests/arm64/run_arm64.sh took $((SECONDS - arm64_started)) s"
  arm64_line=$(grep -E '^arm64: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  arm64_passed=$(sed -n 's/^arm64: \([0-9]*\) passed.*/\1/p' <<<"$arm64_line")
  arm64_failed=$(sed -n 's/.* \([0-9]*\) failed$/\1/p' <<<"$arm64_line")
  passed=$((passed + ${arm64_passed:-0}))
  failed=$((failed + ${arm64_failed:-1}))
  if [ "$arm64_status" -ne 0 ]; then
    overall_status=$arm64_status
    [ "${arm64_failed:-0}" -eq 0 ] && failed=$((failed + 1))
  fi
else
  cat "$aarch64_deps_log"
  echo "tracewire: the arm64 toolchain could not be installed; the arm64 tests fail" >&2
  failed=$((failed + 1))
  overall_status=1
fi

# The examples, built the way a user of the installed tracewire builds them. The install
# uses the configuration the tests were built in, so it rebuilds almost nothing.
run_examples() {
  echo "== examples: tests/examples/run_examples.sh -c fastbuild"
  local started=$SECONDS
  tests/examples/run_examples.sh -c fastbuild 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  echo "== examples took $((SECONDS - started)) s"
  local summary
  summary=$(grep -E '^examples: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  if [ -z "$summary" ]; then
    echo "tracewire: the examples ended without a summary" >&2
    failed=$((failed + 1))
    overall_status=1
    return
  fi
  passed=$((passed + $(sed -E 's/^examples: ([0-9]+) passed.*/\1/' <<<"$summary")))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")))
  if [ "$status" -ne 0 ]; then
    overall_status=$status
  fi
}
run_examples

# The fuzzers' results (started in the background above).
fuzz_status=1
if [ -n "$fuzz_pid" ]; then
  wait "$fuzz_pid"
  fuzz_status=$?
fi
echo "== fuzz targets: the background run's log"
cat "$fuzz_log"
fuzz_line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed$' "$fuzz_log" | tail -n 1)
fuzz_passed=$(sed -n 's/^fuzz: \([0-9]*\) passed.*/\1/p' <<<"$fuzz_line")
fuzz_failed=$(sed -n 's/.* \([0-9]*\) failed$/\1/p' <<<"$fuzz_line")
passed=$((passed + ${fuzz_passed:-0}))
failed=$((failed + ${fuzz_failed:-1}))
if [ "$fuzz_status" -ne 0 ]; then
  overall_status=$fuzz_status
  [ "${fuzz_failed:-0}" -eq 0 ] && failed=$((failed + 1))
fi

echo "== the whole run took ${SECONDS} s"
echo "${passed} passed, ${failed} failed"
if [ "$overall_status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  exit 1
fi
