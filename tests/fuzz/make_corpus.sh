#!/usr/bin/env bash
# Regenerates the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from real
# traces: the demo workload (one file per process, a shared file, compressed, tiny
# generations, stacks), every testtool verb, a trace cut inside a generation, git's own
# Trace2 EVENT streams (a small repository's commands, with real git) and their imports.
# The corpora are committed; run this after a wire-format change and commit the result.
# Inputs that fuzzing campaigns grew and merged into the corpora (files named by their
# SHA-1) are left in place; remove them by hand if the format change made them useless.
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build //examples/demo //examples/threadpool //tests/bench:cpu_profile_bench //tests/testtool \
  //tools:tracewire >&2
bin=$(bazel info bazel-bin 2>/dev/null)
demo=$bin/examples/demo/demo
testtool=$bin/tests/testtool/testtool
threadpool=$bin/examples/threadpool/threadpool
cpu_workload=$bin/tests/bench/cpu_profile_bench
tracewire=$bin/tools/tracewire

corpus=tests/fuzz/corpus
mkdir -p "$corpus"/{reader_validate,reader,import,splitter,raw}
work=$(mktemp -d /tmp/tracewire-corpus.XXXXXX)
trap 'rm -rf "$work"' EXIT

# seed NAME FILE: a runtime trace, for the targets that read traces.
seed() {
  local name=$1 file=$2
  for target in reader_validate reader splitter raw; do cp "$file" "$corpus/$target/$name"; done
}

# run_traced NAME ENV... -- COMMAND...: traces COMMAND into a fresh directory and seeds
# each file it wrote (NAME-1, NAME-2, ... in sid order).
run_traced() {
  local name=$1
  shift
  local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  local dir=$work/$name
  mkdir -p "$dir"
  env TRACEWIRE="$dir" "${env[@]}" "$@" >/dev/null 2>&1 || true
  local i=0
  for file in "$dir"/*; do
    i=$((i + 1))
    seed "$name-$i" "$file"
  done
}

run_traced demo -- "$demo"
run_traced demo-compressed TRACEWIRE_COMPRESS=1 -- "$demo"
run_traced demo-tiny-generations TRACEWIRE_GENERATION_MS=1 -- "$demo"
run_traced demo-stacks TRACEWIRE_STACKS=region_enter,error,data -- "$demo"
# A file target that both processes of the demo append to.
TRACEWIRE=$work/shared.twr "$demo" >/dev/null 2>&1 || true
seed demo-shared-file "$work/shared.twr"

run_traced testtool-001return -- "$testtool" trace2 001return 0
run_traced testtool-002exit -- "$testtool" trace2 002exit 3
run_traced testtool-003error -- "$testtool" trace2 003error hello "world \"quoted\""
run_traced testtool-004child -- "$testtool" trace2 004child "$testtool" trace2 001return 1
run_traced testtool-005exec -- "$testtool" trace2 005exec "$testtool" trace2 001return 0
run_traced testtool-006data -- "$testtool" trace2 006data cat key value cat2 key2 "v a l"
run_traced testtool-007bug -- "$testtool" trace2 007bug
run_traced testtool-100timer -- "$testtool" trace2 100timer 3 1
run_traced testtool-101timer TRACEWIRE_GENERATION_MS=1 -- "$testtool" trace2 101timer 2 1 3
run_traced testtool-200counter -- "$testtool" trace2 200counter 1 2 3
run_traced testtool-201counter -- "$testtool" trace2 201counter 5 7 2

# Tasks that cross threads, gauges and their re-statement at tiny generations; CPU samples
# (with their stacks) inside nested regions.
run_traced threadpool-tasks TRACEWIRE_GENERATION_MS=1 -- "$threadpool" 40
run_traced cpu-profile TRACEWIRE_GENERATION_MS=10 TRACEWIRE_CPU_PROFILE=1000 -- \
  "$cpu_workload" --workload 1000

# Damaged traces for the salvage paths: a cut inside a generation, a shared file where a
# writer stopped inside a generation and complete ones follow.
full=$corpus/reader/demo-tiny-generations-1
head -c $(( $(stat -c %s "$full") * 2 / 3 )) "$full" >"$work/cut.twr"
seed demo-cut-inside-generation "$work/cut.twr"
{ head -c 300 "$corpus/reader/demo-1"; cat "$corpus/reader/testtool-001return-1" \
    "$corpus/reader/testtool-006data-1"; } >"$work/damaged-shared.twr"
seed damaged-then-complete "$work/damaged-shared.twr"

# git's own EVENT streams, and their imports (which are traces again).
cp tests/cli/testdata/git_event_stream.json "$corpus/import/git-event-stream"
if command -v git >/dev/null; then
  repo=$work/repo
  events=$work/git-events.json
  (
    export GIT_TRACE2_EVENT=$events GIT_TRACE2_EVENT_NESTING=10
    export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
    export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
    git init -q "$repo"
    cd "$repo"
    echo hello >a.txt
    git add a.txt
    git commit -q -m one
    git status --porcelain >/dev/null
    git log --oneline >/dev/null
  )
  cp "$events" "$corpus/import/git-init-add-commit-status-log"
  grep '"sid":"[^"]*"' -m1 -o "$events" >/dev/null
  # One process's lines only (the first sid), and its first 20 lines.
  first_sid=$(head -n1 "$events" | sed 's/.*"sid":"\([^"]*\)".*/\1/')
  grep -F "\"sid\":\"$first_sid\"" "$events" >"$corpus/import/git-one-process"
  head -n 20 "$corpus/import/git-one-process" >"$corpus/import/git-one-process-head"
fi
"$tracewire" decode --format=event "$corpus/reader/demo-1" >"$corpus/import/tracewire-demo-event" || true
for stream in "$corpus"/import/*; do
  name=imported-$(basename "$stream")
  if "$tracewire" import --from=trace2-event -o "$work/$name" "$stream" 2>/dev/null; then
    seed "$name" "$work/$name"
  fi
  if "$tracewire" import --from=trace2-event --compress -o "$work/$name-compressed" "$stream" 2>/dev/null; then
    seed "$name-compressed" "$work/$name-compressed"
  fi
done

# The varint layer: boundary encodings (docs/format.md §2).
printf '\x00\x7f\x80\x01\xac\x02' >"$corpus/raw/varints"
printf '\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01' >"$corpus/raw/varints-64bit"
printf '\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80' >"$corpus/raw/varints-bad"

for target in reader_validate reader import splitter raw; do
  echo "$target: $(ls "$corpus/$target" | wc -l) seeds, $(du -sk "$corpus/$target" | cut -f1) KiB" >&2
done
