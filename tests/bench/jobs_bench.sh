#!/usr/bin/env bash
# The `tracewire` commands with one and with two jobs, as a user runs them (docs/performance.md,
# "Every command with --jobs"): for each command, in one run with the same binary,
#   * --jobs=1 and --jobs=2: wall and CPU seconds (user + system) and peak RSS;
#   * two --jobs=1 runs at once: the wall time of both, the machine's ceiling for two jobs;
# and the ratios: speed-up of --jobs=2 over --jobs=1, the ceiling's (2 x jobs=1 / both),
# --jobs=2's share of the ceiling, and events per CPU second with --jobs=1.
#
#   tests/bench/jobs_bench.sh [--events=40000000] [--commands='stats,event,...'] [--tracewire=BIN]
#
# --tracewire measures another build of the command (e.g. an older one) on the same input.
#
# Input: the benchmarks' synthetic trace, two threads (each group a region pair with three
# data events inside), 3 M events per generation, in a temporary directory. Output goes to
# /dev/null (the page of `report` to a file in the directory).
set -euo pipefail
cd "$(dirname "$0")/../.."

events=40000000
commands=validate,stats,report,event,perf,normal,chrome,otlp,perfetto
other=
for arg in "$@"; do
  case "$arg" in
    --tracewire=*) other=${arg#*=} ;;
    --events=*) events=${arg#*=} ;;
    --commands=*) commands=${arg#*=} ;;
    *) echo "usage: $0 [--events=N] [--commands=a,b,...]" >&2; exit 2 ;;
  esac
done

bazel build -c opt //tools:tracewire //tests/bench:make_bench_trace >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
tw=${other:-$bin/tools/tracewire}
work=$(mktemp -d /tmp/tracewire-jobs-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bin/tests/bench/make_bench_trace" --threads=2 --events="$events" \
  --events_per_generation=3000000 "$work/t.twr" >&2
trace_events=$("$tw" validate --jobs=1 "$work/t.twr" | sed -n 's/.*valid: \([0-9]*\) events.*/\1/p')

args_of() {
  case "$1" in
    validate | stats) echo "$1" ;;
    report) echo "report -o $work/report-$2.html" ;;
    *) echo "decode --format=$1 -o /dev/null" ;;
  esac
}

# run JOBS TAG COMMAND: prints "wall cpu rss_kb" of one run (report has no --jobs: it
# reads serially, and its two columns are two serial runs).
run() {
  local jobs=$1 tag=$2 command=$3 flag=--jobs=$1
  [ "$command" = report ] && flag=
  /usr/bin/time -f "%e %U %S %M" -o "$work/time-$tag" $tw $(args_of "$command" "$tag") \
    $flag "$work/t.twr" >/dev/null
  awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4}' "$work/time-$tag"
}

printf '%-9s | %-22s | %-22s | %-9s | %-8s | %-8s | %-8s | %s\n' command "jobs=1 wall/CPU/RSS" \
  "jobs=2 wall/CPU/RSS" "2x jobs=1" "speed-up" ceiling "share" "M events/CPU-s (jobs=1)"
for command in ${commands//,/ }; do
  read -r w1 c1 m1 < <(run 1 a "$command")
  read -r w2 c2 m2 < <(run 2 b "$command")
  start=$(date +%s.%N)
  run 1 c "$command" >/dev/null &
  run 1 d "$command" >/dev/null &
  wait
  both=$(echo "$(date +%s.%N) - $start" | bc)
  awk -v cmd="$command" -v w1="$w1" -v c1="$c1" -v m1="$m1" -v w2="$w2" -v c2="$c2" -v m2="$m2" \
    -v both="$both" -v ev="$trace_events" 'BEGIN {
      speedup = w1 / w2; ceiling = 2 * w1 / both;
      printf "%-9s | %5.2f s %5.2f s %4d MB | %5.2f s %5.2f s %4d MB | %7.2f s | %7.2fx | %7.2fx | %6.0f %% | %.1f\n",
        cmd, w1, c1, m1 / 1024, w2, c2, m2 / 1024, both, speedup, ceiling, 100 * speedup / ceiling,
        ev / c1 / 1e6 }'
done
