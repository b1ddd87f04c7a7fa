#!/bin/bash
# Installs what the LTTng-UST side-by-side benchmark needs (Debian 12: LTTng-UST 2.13,
# lttng-tools 2.13, babeltrace2 2.0). Run as root. The test suite never runs this.
set -euo pipefail
missing=()
for pkg in liblttng-ust-dev lttng-tools babeltrace2; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
