#!/bin/bash
# The side-by-side benchmark of tracewire and LTTng-UST (docs/performance.md, "Peers").
#
#   tests/bench/lttng/run.sh [EVENTS]        # as root, from the repository root
#
# 1. installs LTTng-UST, lttng-tools and babeltrace2 if missing (setup.sh);
# 2. builds //tests/bench:side_by_side and //tools:tracewire with Bazel, and the LTTng-UST
#    tracepoint provider (bench_probe.c) as a shared object with gcc;
# 3. starts a per-user LTTng session daemon as `nobody` in a scratch directory (nothing
#    system-wide: no root daemon, no kernel tracing), with one user-space channel of
#    8 x 4 MiB sub-buffers in discard mode, and runs the benchmark as `nobody`, tracing into
#    both tracers in one process (hot path: ns per event, interleaved passes);
# 4. counts the events each trace holds (LTTng's discarded events are the difference), and
#    times the decoders on them: tracewire validate / stats / decode --format=event against
#    babeltrace2 with the dummy sink (decode only) and to text, in CPU seconds.
set -euo pipefail
cd "$(dirname "$0")/../../.."
EVENTS=${1:-10000000}
HERE=tests/bench/lttng

bash "$HERE/setup.sh"
bazel build -c opt //tests/bench:side_by_side //tools:tracewire >/dev/null 2>&1

SCRATCH=$(mktemp -d /tmp/tracewire_lttng.XXXXXX)
chmod 755 "$SCRATCH"
mkdir -p "$SCRATCH/home" "$SCRATCH/traces"
cp bazel-out/k8-opt/bin/tests/bench/side_by_side bazel-out/k8-opt/bin/tools/tracewire "$SCRATCH/"
gcc -O2 -fPIC -shared -I"$HERE" "$HERE/bench_probe.c" -o "$SCRATCH/liblttng_bench_probe.so" \
  -llttng-ust -ldl
chown -R nobody:nogroup "$SCRATCH"
asnobody() {
  setpriv --reuid=65534 --regid=65534 --clear-groups \
    env HOME="$SCRATCH/home" LTTNG_HOME="$SCRATCH/home" "$@"
}
asnobody lttng-sessiond --no-kernel --quiet &
SESSIOND=$!
cleanup() {
  asnobody lttng destroy bench >/dev/null 2>&1 || true
  kill -TERM "$SESSIOND" 2>/dev/null || true
  wait "$SESSIOND" 2>/dev/null || true
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
for _ in $(seq 50); do asnobody lttng list >/dev/null 2>&1 && break; sleep 0.2; done
asnobody lttng create bench --output="$SCRATCH/traces/lttng" >/dev/null
asnobody lttng enable-channel -u --subbuf-size=4M --num-subbuf=8 bench >/dev/null
asnobody lttng enable-event -u -c bench 'tracewire_bench:*' >/dev/null
asnobody lttng start >/dev/null

echo "== hot path (load average: $(cut -d' ' -f1-3 /proc/loadavg)) =="
asnobody env TRACEWIRE="$SCRATCH/traces/tracewire.twr" "$SCRATCH/side_by_side" \
  --lttng_probe="$SCRATCH/liblttng_bench_probe.so" --events="$EVENTS"
asnobody lttng stop >/dev/null

LTTNG_TRACE="$SCRATCH/traces/lttng"
TW_TRACE="$SCRATCH/traces/tracewire.twr"
count_lttng() {  # the "Event messages" count of babeltrace2's counter sink
  babeltrace2 "$LTTNG_TRACE" -c sink.utils.counter 2>/dev/null |
    awk '/^ *[0-9]+ +Event messages/ {n = $1} END {print n + 0}'
}
echo
echo "== events in the traces =="
tw_events=$("$SCRATCH/tracewire" validate --jobs=1 "$TW_TRACE" | sed -E 's/.*valid: ([0-9]+) events.*/\1/')
lt_events=$(count_lttng)
fired=$(( EVENTS / 10 + 5 * EVENTS ))
echo "tracewire: $tw_events of $(( 2 * fired )) region events (two tracewire sides), $(stat -c %s "$TW_TRACE") bytes"
echo "LTTng-UST: $lt_events of $fired ($(( fired - lt_events )) discarded), $(du -sb "$LTTNG_TRACE" | cut -f1) bytes"

echo
echo "== decoding the same events (CPU seconds, events per CPU second) =="
cpu() {  # prints user+sys seconds of a command, its output discarded
  /usr/bin/time -f '%U %S' "$@" >/dev/null 2>"$SCRATCH/time" || true
  tail -1 "$SCRATCH/time" | awk '{printf "%.3f", $1 + $2}'
}
report() {  # name events seconds
  awk -v n="$1" -v e="$2" -v s="$3" 'BEGIN {printf "%-44s %8.3f s  %8.2f M events/s\n", n, s, e / s / 1e6}'
}
for jobs in 1 0; do
  label="jobs=$jobs"; [ "$jobs" = 0 ] && label="jobs=cores"
  report "tracewire validate ($label)" "$tw_events" "$(cpu "$SCRATCH/tracewire" validate --jobs=$jobs "$TW_TRACE")"
  report "tracewire stats ($label)" "$tw_events" "$(cpu "$SCRATCH/tracewire" stats --jobs=$jobs "$TW_TRACE")"
  report "tracewire decode --format=event ($label)" "$tw_events" \
    "$(cpu "$SCRATCH/tracewire" decode --jobs=$jobs --format=event --nesting=100 "$TW_TRACE" -o /dev/null)"
done
report "babeltrace2 -c sink.utils.dummy" "$lt_events" "$(cpu babeltrace2 "$LTTNG_TRACE" -c sink.utils.dummy)"
report "babeltrace2 (text)" "$lt_events" "$(cpu babeltrace2 "$LTTNG_TRACE")"
