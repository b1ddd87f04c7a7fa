#!/usr/bin/env bash
# The main job: builds tracewire, runs the traced demo workload and shows its trace
# decoded in git's NORMAL and PERF formats, plus an HTML report. Installs missing Debian
# packages first.
set -euo pipefail
cd "$(dirname "$0")/../.."
install/install_deps.sh

bazel build -c opt //examples/demo //tools:tracewire >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
out=$(mktemp -d /tmp/tracewire-demo.XXXXXX)

echo "== running the demo with TRACEWIRE=$out (one trace file per process)" >&2
TRACEWIRE="$out" "$bin/examples/demo/demo" || true   # the demo ends with exit code 1 on purpose

for trace in "$out"/*; do
  echo "== $trace: $("$bin/tools/tracewire" validate "$trace" | sed 's/^.*: valid: /valid: /'), $(stat -c %s "$trace") bytes"
done
echo
echo "== tracewire decode --format=normal $out   (git's NORMAL format, both processes)"
"$bin/tools/tracewire" decode --format=normal "$out"
echo
echo "== tracewire decode --format=perf $out   (git's PERF format)"
"$bin/tools/tracewire" decode --format=perf "$out"
echo
echo "== tracewire report $out -o $out.html   (timelines and top regions; open it in a browser)"
"$bin/tools/tracewire" report "$out" -o "$out.html"
echo "wrote $out.html"
