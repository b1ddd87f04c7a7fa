#!/usr/bin/env bash
# Runs the whole tracewire test suite with Bazel and prints "N passed, N failed" (counted
# per GoogleTest case from Bazel's test.xml files) as its last line. Exits non-zero if any
# test failed or if no test ran. Extra arguments go to `bazel test`.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh || exit 1

bazel_flags=(--test_output=errors --test_summary=short)
if [ "${CI:-}" = "true" ]; then
  bazel_flags+=(--noshow_progress --curses=no --color=no)
fi

bazel test "${bazel_flags[@]}" "$@" //... 2>&1 | tee /tmp/tracewire-test-output.$$
bazel_status=${PIPESTATUS[0]}

testlogs=$(bazel info bazel-testlogs 2>/dev/null)
passed=0
failed=0
# Count the cases of the test targets of this run (cached ones included), read from their
# test.xml; stale files of targets that did not run are ignored.
targets=$(grep -oE '^//[^ ]+' /tmp/tracewire-test-output.$$ | sort -u)
for target in $targets; do
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
  failed=$((failed + bad))
done

# A test target that failed without a failing case in its test.xml (a crash, a timeout, a
# build failure) still counts as one failure.
while read -r target; do
  path=${target#//}
  xml="$testlogs/${path/://}/test.xml"
  if ! grep -qE '<testsuites [^>]*failures="[1-9]' "$xml" 2>/dev/null; then
    failed=$((failed + 1))
  fi
done < <(grep -oE '^//[^ ]+ +(\(cached\) +)?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FAILED TO BUILD)' \
           /tmp/tracewire-test-output.$$ | grep -oE '^//[^ ]+')
if [ "$bazel_status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1
fi
rm -f /tmp/tracewire-test-output.$$

echo "${passed} passed, ${failed} failed"
if [ "$bazel_status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
  exit 1
fi
