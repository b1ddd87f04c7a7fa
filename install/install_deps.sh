#!/usr/bin/env bash
# Installs the Debian 12 packages tracewire builds and tests with, if any is missing.
# Needs root (or sudo) only when something must be installed.
set -euo pipefail

packages=(
  bazel-bootstrap   # Bazel 4.2.3, WORKSPACE mode, offline
  g++ pkg-config
  libabsl-dev libzstd-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler  # the Perfetto export: protoc generates its messages, linked with protobuf-lite
  zlib1g-dev        # tests decompress the Perfetto export's packets (compressed_packets) with zlib
  libdeflate-dev    # the Perfetto export compresses its packets (compressed_packets) in zlib's format with libdeflate, linked statically
  libprotobuf32 libsqlite3-0 zlib1g  # run time of Perfetto's trace processor, which tests load the Perfetto export into
  libcurl4-openssl-dev  # the OTLP/HTTP exporter (decode and listen --otlp-endpoint); headers only, libcurl is loaded on first use
  libdw-dev         # the reader symbolizes stack frames with elfutils' libdwfl; headers only, libdw is loaded on first use
  libsqlite3-dev    # the in-memory database of `tracewire query` (linked statically into the command)
  sqlite3 python3   # tests open the database `tracewire query --db` writes with the sqlite3 CLI and Python
  git               # interoperability tests compare with real git
  chromium          # the HTML report is checked in headless Chromium
  clang libclang-rt-14-dev lld  # fuzz targets: clang 14, libFuzzer + sanitizer runtimes, lld
  cmake make        # the examples are built with CMake and make (tests/examples)
  valgrind          # tests/hotpath counts the region hot path's instructions with callgrind
)

# The test-only Node.js toolchain (tests/consumers): Debian's nodejs and npm, unless a node
# and npm are already installed (for example from another packaging of Node.js).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "tracewire: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
