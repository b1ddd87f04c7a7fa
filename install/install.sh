#!/usr/bin/env bash
# Installs tracewire into PREFIX, built by Bazel:
#   PREFIX/bin/tracewire                                   the command that reads traces
#   PREFIX/include/tracewire/tracewire.h, tracewire.hpp    the C API and the C++ layer
#   PREFIX/lib/libtracewire.a                              the runtime, static
#   PREFIX/lib/libtracewire.so.X.Y.Z (+ .so.X, .so)        the runtime, shared (SONAME .so.X)
#   PREFIX/lib/pkgconfig/tracewire.pc                      for pkg-config
#   PREFIX/lib/cmake/tracewire/tracewireConfig.cmake, tracewireConfigVersion.cmake
#
# usage: install/install.sh [--arch=aarch64] PREFIX [BAZEL_FLAGS...]
# BAZEL_FLAGS go to `bazel build` (default: -c opt). Installs missing Debian packages
# first (install/install_deps.sh). With --arch=aarch64 everything installed is for arm64
# Linux, cross-compiled (bazel --config=aarch64) with Debian's aarch64-linux-gnu-g++ and
# the arm64 libraries install/install_deps_aarch64.sh puts in a sysroot first; the host's
# own architecture is the default (--arch=x86_64, or aarch64 on an arm64 machine). PREFIX is created if missing; writing to a system prefix
# such as /usr/local needs root.
set -euo pipefail

usage="usage: install/install.sh [--arch=aarch64] PREFIX [BAZEL_FLAGS...]"
host_arch=$(uname -m)
arch=$host_arch
case "${1:-}" in
  --arch=*)
    arch=${1#--arch=}
    shift
    ;;
esac
if [ "$arch" = arm64 ]; then
  arch=aarch64
fi
if [ "$arch" != "$host_arch" ] && [ "$arch" != aarch64 ]; then
  echo "install/install.sh: unknown --arch '$arch' (aarch64 is the one cross build)" >&2
  echo "$usage" >&2
  exit 2
fi
if [ $# -lt 1 ] || [ -z "$1" ] || [ "${1#-}" != "$1" ]; then
  echo "$usage" >&2
  exit 2
fi
prefix=$1
shift
bazel_flags=("$@")
if [ ${#bazel_flags[@]} -eq 0 ]; then
  bazel_flags=(-c opt)
fi

cd "$(dirname "$0")/.."
if [ "$arch" != "$host_arch" ]; then
  install/install_deps_aarch64.sh
  bazel_flags+=(--config=aarch64)
else
  install/install_deps.sh
fi

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

bazel build "${bazel_flags[@]}" //install:install_files >&2
bin=$(bazel info "${bazel_flags[@]}" bazel-bin 2>/dev/null)

version=$(sed -n 's/^Version: //p' "$bin/install/tracewire.pc")
shared=libtracewire.so.$version
soname=libtracewire.so.${version%%.*}

install -d "$prefix/bin" "$prefix/include/tracewire" "$prefix/lib/pkgconfig" \
  "$prefix/lib/cmake/tracewire"
install -m 755 "$bin/tools/tracewire" "$prefix/bin/tracewire"
install -m 644 include/tracewire/tracewire.h include/tracewire/tracewire.hpp \
  "$prefix/include/tracewire/"
install -m 644 "$bin/install/libtracewire.a" "$prefix/lib/libtracewire.a"
install -m 755 "$bin/install/$shared" "$prefix/lib/$shared"
ln -sfn "$shared" "$prefix/lib/$soname"
ln -sfn "$soname" "$prefix/lib/libtracewire.so"
sed "s|@PREFIX@|$prefix|g" "$bin/install/tracewire.pc" >"$prefix/lib/pkgconfig/tracewire.pc"
chmod 644 "$prefix/lib/pkgconfig/tracewire.pc"
install -m 644 "$bin/install/tracewireConfig.cmake" "$bin/install/tracewireConfigVersion.cmake" \
  "$prefix/lib/cmake/tracewire/"

echo "tracewire $version ($arch) installed in $prefix" >&2
