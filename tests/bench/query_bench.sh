#!/usr/bin/env bash
# Benchmarks of `tracewire query` (docs/performance.md, "tracewire query"): every figure is a
# ratio to `tracewire validate` (and `tracewire stats`) on the same input, measured in one
# run with the same binary, interleaved over --rounds repetitions. CPU = user + system.
#
#   tests/bench/query_bench.sh [--rounds=3] [--events=10000000] [--slices_events=25000000]
#                              [--files=2000]
#
# Inputs (in a temporary directory, removed at the end):
#   load:     the benchmarks' synthetic trace (make_bench_trace), --events events: regions
#             with integer and string data inside, one thread;
#   group-by: the same with --slices_events events (a fifth of them are regions: 5 M slices
#             at the default), loaded once per query;
#   fleet:    a directory of --files small traces, one per process (//tests/testtool runs).
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=3
events=10000000
slices_events=25000000
files=2000
for arg in "$@"; do
  case "$arg" in
    --rounds=*) rounds=${arg#*=} ;;
    --events=*) events=${arg#*=} ;;
    --slices_events=*) slices_events=${arg#*=} ;;
    --files=*) files=${arg#*=} ;;
    *) echo "usage: $0 [--rounds=N] [--events=N] [--slices_events=N] [--files=N]" >&2; exit 2 ;;
  esac
done

bazel build -c opt //tools:tracewire //tests/bench:make_bench_trace //tests/testtool >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
tw=$bin/tools/tracewire
work=$(mktemp -d /tmp/tracewire-query-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$bin/tests/bench/make_bench_trace" --events="$events" "$work/load.twr" >&2
"$bin/tests/bench/make_bench_trace" --events="$slices_events" "$work/slices.twr" >&2
mkdir "$work/fleet"
for i in $(seq 1 "$files"); do
  TRACEWIRE="$work/fleet/p$i.twr" "$bin/tests/testtool/testtool" trace2 001return 0
done

# run NAME COMMAND...: one line "NAME cpu_s wall_s rss_mb".
run() {
  local name=$1
  shift
  /usr/bin/time -f "%U %S %e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "$name failed: $(cat "$work/err")" >&2
    exit 1
  }
  awk -v n="$name" '{printf "%s %.3f %.3f %.0f\n", n, $1 + $2, $3, $4 / 1024}' "$work/time"
}

echo "load: $(grep -o 'valid: [0-9]* events' <("$tw" validate "$work/load.twr")), slices:" \
  "$("$tw" query "$work/slices.twr" --format=csv -c 'SELECT count(*) FROM slice' | tail -1)," \
  "fleet: $(ls "$work/fleet" | wc -l) files"
group_by="SELECT category, name, count(*), sum(dur), sum(self_dur), max(dur) FROM slice GROUP BY category, name"
for round in $(seq 1 "$rounds"); do
  run "load/validate" "$tw" validate --jobs=1 "$work/load.twr"
  run "load/stats" "$tw" stats --jobs=1 "$work/load.twr"
  run "load/query" "$tw" query "$work/load.twr" -c "SELECT 1"
  run "load/query-jobs2" "$tw" query --jobs=2 "$work/load.twr" -c "SELECT 1"
  run "load/query-db-file" "$tw" query "$work/load.twr" --db "$work/load-$round.sqlite"
  rm -f "$work/load-$round.sqlite"
  run "slices/validate" "$tw" validate --jobs=1 "$work/slices.twr"
  run "slices/query-load" "$tw" query "$work/slices.twr" -c "SELECT 1"
  run "slices/query-group-by" "$tw" query "$work/slices.twr" -c "$group_by"
  run "slices/query-region-stats" "$tw" query "$work/slices.twr" -c "SELECT * FROM region_stats"
  run "slices/query-region-stats-portable" "$tw" query "$work/slices.twr" \
    -c "SELECT * FROM main.region_stats"
  run "fleet/validate" "$tw" validate --jobs=1 "$work/fleet"
  run "fleet/stats" "$tw" stats --jobs=1 "$work/fleet"
  run "fleet/query" "$tw" query "$work/fleet" -c "SELECT count(*) FROM process"
done
