#!/usr/bin/env bash
# Line and region coverage that the fuzz targets' inputs reach in the code each target is
# for, measured with clang's source-based coverage (llvm-profdata and llvm-cov, Debian's
# `llvm` package; not part of the test suite):
#   tests/fuzz/coverage.sh [CORPUS_ROOT]
# runs every file of tests/fuzz/corpus/<target>, tests/fuzz/regressions/<target> and, if
# given, CORPUS_ROOT/<target> (e.g. the corpora a long fuzzing run grew) through each
# target once and prints llvm-cov's per-file report and totals for the target's sources.
set -euo pipefail
cd "$(dirname "$0")/../.."
extra=${1:-}
for tool in llvm-profdata llvm-cov; do
  command -v "$tool" >/dev/null || { echo "coverage.sh: $tool is missing (apt-get install llvm)" >&2; exit 2; }
done
declare -A sources=(
  [reader_validate]="reader/byte_source.cc reader/frame_reader.cc reader/generation_decoder.cc reader/generation_tables.cc reader/reader.cc reader/process_tree.cc reader/event.cc reader/loss_report.cc"
  [reader]="reader/byte_source.cc reader/frame_reader.cc reader/generation_decoder.cc reader/generation_tables.cc reader/reader.cc reader/process_tree.cc reader/event.cc reader/loss_report.cc reader/targets/event_target.cc reader/targets/perf_target.cc reader/targets/normal_target.cc reader/targets/git_text.cc reader/targets/chrome_target.cc reader/targets/otlp_target.cc reader/targets/json_writer.cc"
  [import]="tools/trace2_import/trace2_import.cc tools/trace2_import/import_timeline.cc tools/trace2_import/trace2_line.cc"
  [splitter]="tools/collector/generation_splitter.cc"
  [raw]="format/varint.cc format/raw_decoder.cc format/record_encoder.cc tools/commands/dump.cc"
)
targets=(reader_validate reader import splitter raw)
labels=()
for target in "${targets[@]}"; do labels+=("//tests/fuzz:${target}_fuzzer"); done
bazel build --config=fuzzcov "${labels[@]}" >&2
bin=$(bazel info --config=fuzzcov bazel-bin 2>/dev/null)/tests/fuzz
work=$(mktemp -d /tmp/tracewire-coverage.XXXXXX)
trap 'rm -rf "$work"' EXIT
for target in "${targets[@]}"; do
  dirs=("tests/fuzz/corpus/$target")
  [ -d "tests/fuzz/regressions/$target" ] && dirs+=("tests/fuzz/regressions/$target")
  [ -n "$extra" ] && [ -d "$extra/$target" ] && dirs+=("$extra/$target")
  files=$(find "${dirs[@]}" -type f | wc -l)
  LLVM_PROFILE_FILE="$work/$target.profraw" "$bin/${target}_fuzzer" "${dirs[@]}" 2>/dev/null
  llvm-profdata merge -sparse "$work/$target.profraw" -o "$work/$target.profdata"
  echo "== $target: $files inputs (${dirs[*]})"
  # shellcheck disable=SC2086
  llvm-cov report "$bin/${target}_fuzzer" -instr-profile="$work/$target.profdata" ${sources[$target]}
done
