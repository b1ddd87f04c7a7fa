#!/usr/bin/env bash
# How the `tracewire` commands scale with --jobs, measured in CPU seconds so that a loaded
# machine with few cores still shows it (docs/performance.md, "Scaling with --jobs"): for
# each command, --jobs=1, 2, 4 and 8 on one trace (time-sliced where the machine has fewer
# cores), each run's CPU seconds (user + system) and peak RSS. From them:
#   * the floor: the CPU each thread beyond the first adds (least squares over the runs:
#     CPU(J) = CPU(1) + (J - 1) x floor), and its share of CPU(1);
#   * the speed-up this predicts on J idle cores, where the threads share the work evenly:
#     J x CPU(1) / CPU(J) = J / (1 + (J - 1) x share), at 8 and 32 cores;
#   * memory: peak RSS beyond --jobs=1, per thread beyond the first.
#
#   tests/bench/jobs_scaling.sh [--events=20000000] [--commands='stats,event,...'] [--tracewire=BIN]
#                               [--make_bench_trace=BIN] [--events_per_generation=3000000]
#
# --tracewire and --make_bench_trace use those binaries instead of building -c opt.
set -euo pipefail
cd "$(dirname "$0")/../.."

events=20000000
per_generation=3000000
commands=validate,stats,event,perf,chrome,otlp,perfetto
other=
maker=
for arg in "$@"; do
  case "$arg" in
    --tracewire=*) other=${arg#*=} ;;
    --make_bench_trace=*) maker=${arg#*=} ;;
    --events=*) events=${arg#*=} ;;
    --events_per_generation=*) per_generation=${arg#*=} ;;
    --commands=*) commands=${arg#*=} ;;
    *) echo "usage: $0 [--events=N] [--commands=a,b,...] [--tracewire=BIN] [--make_bench_trace=BIN]" >&2; exit 2 ;;
  esac
done

if [ -z "$other" ] || [ -z "$maker" ]; then
  bazel build -c opt //tools:tracewire //tests/bench:make_bench_trace >&2
  bin=$(bazel info -c opt bazel-bin 2>/dev/null)
fi
tw=${other:-$bin/tools/tracewire}
maker=${maker:-$bin/tests/bench/make_bench_trace}
work=$(mktemp -d /tmp/tracewire-jobs-scaling.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$maker" --threads=2 --events="$events" \
  --events_per_generation="$per_generation" "$work/t.twr" >&2

args_of() {
  case "$1" in
    validate | stats) echo "$1" ;;
    *) echo "decode --format=$1 -o /dev/null" ;;
  esac
}

printf '%-9s | %-14s | %-14s | %-14s | %-14s | %-7s | %-6s | %-6s | %-6s | %s\n' command \
  "j=1 CPU/RSS" "j=2 CPU/RSS" "j=4 CPU/RSS" "j=8 CPU/RSS" "floor s" "share" "@8" "@32" \
  "MB/extra job (max)"
for command in ${commands//,/ }; do
  line=$(printf '%-9s' "$command")
  for jobs in 1 2 4 8; do
    /usr/bin/time -f "%U %S %M" -o "$work/time" $tw $(args_of "$command") --jobs=$jobs \
      "$work/t.twr" >/dev/null
    read -r user sys rss <"$work/time"
    echo "$jobs $user $sys $rss" >>"$work/runs-$command"
    line+=$(awk -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN { printf " | %5.2f s %4d MB", u + s, r / 1024 }')
  done
  line+=$(awk '
    { j[NR] = $1; c[NR] = $2 + $3; r[NR] = $4 }
    END {
      # floor: least squares of CPU(J) - CPU(1) over (J - 1), through the origin.
      num = 0; den = 0; mem = 0
      for (i = 2; i <= NR; i++) {
        num += (c[i] - c[1]) * (j[i] - 1); den += (j[i] - 1) * (j[i] - 1)
        m = (r[i] - r[1]) / 1024 / (j[i] - 1); if (m > mem) mem = m
      }
      floor = num / den; share = floor / c[1]
      printf " | %5.2f s | %5.1f%% | %5.2fx | %5.2fx | %.1f", floor, 100 * share,
        8 / (1 + 7 * share), 32 / (1 + 31 * share), mem
    }' "$work/runs-$command")
  echo "$line"
done
