#!/usr/bin/env bash
# Installs Go 1.22 and 1.23 from Debian 12's bookworm-backports suite, if missing. Only the
# Go execution trace tests need them (tests/go_import). The suite is added to apt's sources
# with the Debian mirror this machine already uses (read from /etc/apt/sources.list*).
set -euo pipefail

wanted=(golang-1.22-go golang-1.23-go)
missing=()
for package in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

# The mirror: the first URI of an enabled source carrying the "bookworm" suite.
mirror=""
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
  [ -f "$file" ] || continue
  case "$file" in
    *.sources)
      mirror=$(awk '/^URIs:/ {uri=$2} /^Suites:/ && / bookworm( |$)/ {print uri; exit}' "$file")
      ;;
    *)
      mirror=$(awk '$1 == "deb" && $0 ~ / bookworm( |$)/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' "$file")
      ;;
  esac
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ]; then
  echo "tracewire: no Debian bookworm source in /etc/apt/sources.list*; cannot add bookworm-backports" >&2
  exit 1
fi

backports=/etc/apt/sources.list.d/tracewire-bookworm-backports.sources
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "tracewire: adding bookworm-backports from $mirror" >&2
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" | "${sudo_cmd[@]}" tee "$backports" >/dev/null
fi

echo "tracewire: installing ${missing[*]} from bookworm-backports" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
"${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
  -t bookworm-backports "${missing[@]}" >&2
