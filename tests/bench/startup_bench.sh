#!/usr/bin/env bash
# The start-up benchmark of docs/performance.md: what linking the runtime costs a program
# that starts thousands of times. Builds startup_app (-c opt) with Bazel against //runtime
# and against no-op stubs, installs tracewire into a temporary prefix (-c opt) and builds
# startup_app.c with `cc` against the installed libtracewire.a (pkg-config), against
# libtracewire.so, and against the stubs; then runs startup_bench on the three pairs.
#
# usage: tests/bench/startup_bench.sh [startup_bench flags, e.g. --runs=500]
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/tracewire-startup-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

bazel build -c opt //tests/bench:startup_app //tests/bench:startup_app_stubs \
  //tests/bench:startup_bench >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
install/install.sh "$work/prefix" -c opt >&2
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig
app=tests/bench/startup_app.c
# shellcheck disable=SC2046  # pkg-config's flags are separate words
{
  cc -O2 -o "$work/stubs" "$app" tests/bench/tracewire_stubs.c $(pkg-config --cflags tracewire)
  cc -O2 -o "$work/static" "$app" $(pkg-config --cflags --libs tracewire)
  cc -O2 -o "$work/shared" "$app" $(pkg-config --cflags tracewire) -L"$work/prefix/lib" \
    -ltracewire -Wl,-rpath,"$work/prefix/lib"
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
"$bin/tests/bench/startup_bench" "$@" \
  "bazel-runtime=$bin/tests/bench/startup_app_stubs,$bin/tests/bench/startup_app" \
  "installed-libtracewire.a=$work/stubs,$work/static" \
  "installed-libtracewire.so=$work/stubs,$work/shared"
