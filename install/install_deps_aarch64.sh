#!/usr/bin/env bash
# Installs what the arm64 (aarch64) cross build and its tests need, if anything is missing:
#   - from Debian, on the host: the cross compiler (g++-aarch64-linux-gnu, whose C library
#     is in /usr/aarch64-linux-gnu) and qemu-user (qemu-aarch64 runs the arm64 tests);
#   - the arm64 libraries, extracted from Debian's arm64 packages into a sysroot
#     /opt/tracewire/aarch64-sysroot, which the
#     Bazel toolchain (third_party/aarch64) compiles and links against.
# The host's own packages stay as they are: no foreign architecture is added to dpkg; the
# arm64 package lists live in the sysroot's own apt directory.
# Needs root (or sudo) only when something must be installed.
set -euo pipefail

cd "$(dirname "$0")/.."
install/install_deps.sh

sysroot=/opt/tracewire/aarch64-sysroot  # where third_party/aarch64 expects it
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
apt_lock=(-o DPkg::Lock::Timeout=600)

host_packages=(g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
missing=()
for package in "${host_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -ne 0 ]; then
  echo "tracewire: installing missing Debian packages: ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get "${apt_lock[@]}" update -qq
  "${sudo_cmd[@]}" apt-get "${apt_lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The arm64 packages of the sysroot: the -dev packages the build links statically or takes
# headers from, and the shared libraries the arm64 `tracewire` loads when it symbolizes
# (libdw and what it needs).
sysroot_packages=(
  libabsl-dev libzstd-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev libsqlite3-dev libcurl4-openssl-dev libdw-dev libelf-dev zlib1g-dev liblzma-dev
  libdeflate-dev  # the Perfetto export's compressed packets (linked statically)
  nlohmann-json3-dev
  libabsl20220623  # libtracewire.so links Abseil's shared libraries
  libdw1 libelf1 zlib1g liblzma5 libbz2-1.0 libzstd1
  libbenchmark1debian  # libbenchmark.so (the benchmarks link it) points to it
)
stamp="$sysroot/.tracewire-packages"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${sysroot_packages[*]}" ]; then
  exit 0
fi

echo "tracewire: building the arm64 sysroot in $sysroot" >&2
"${sudo_cmd[@]}" mkdir -p "$sysroot"
"${sudo_cmd[@]}" chown "$(id -u):$(id -g)" "$sysroot"
apt_dir="$sysroot/.apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
touch "$apt_dir/status"
apt_arm64=(
  -o APT::Architecture=arm64 -o APT::Architectures::=arm64
  -o Dir::State::Lists="$apt_dir/lists" -o Dir::State::status="$apt_dir/status"
  -o Dir::Cache="$apt_dir/cache" -o Debug::NoLocking=1
)
apt-get "${apt_arm64[@]}" update -qq
(cd "$apt_dir/debs" && rm -f ./*.deb && apt-get "${apt_arm64[@]}" download -qq "${sysroot_packages[@]}")
for deb in "$apt_dir/debs"/*.deb; do
  dpkg-deb -x "$deb" "$sysroot"
done
# Symbolic links the packages make absolute (/lib/..., /usr/lib/...) point into the sysroot.
find "$sysroot" -type l -lname '/*' | while read -r link; do
  ln -sfn "$sysroot$(readlink "$link")" "$link"
done
echo "${sysroot_packages[*]}" >"$stamp"
