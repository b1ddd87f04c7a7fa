#!/usr/bin/env bash
# Makes libtracewire.a and libtracewire.so from the runtime's objects (see defs.bzl).
# usage: merge_library.sh CC OBJCOPY AR MERGED.o LIB.a LIB.so SONAME VERSION_SCRIPT
#            "SYSTEM_FLAGS" ARCHIVE_FLAGS... -- OBJECTS... -- STATIC_ONLY_OBJECTS...
# ARCHIVE_FLAGS are the -l:libNAME.a flags of the static libraries the runtime links (and
# the -L directories they are in, for a cross build);
# STATIC_ONLY_OBJECTS go into libtracewire.a only.
set -euo pipefail
cc=$1 objcopy=$2 ar=$3 merged=$4 static_library=$5 shared_library=$6 soname=$7
version_script=$8 system_flags=$9
shift 9
archives=()
while [ "$1" != "--" ]; do
  archives+=("$1")
  shift
done
shift
objects=()
while [ "$1" != "--" ]; do
  objects+=("$1")
  shift
done
shift
static_only=("$@")

# libtracewire.a: one relocatable object made of the runtime's objects and the archive
# members they need, libstdc++ and libgcc included. Common symbols are allocated and
# section groups (COMDAT) dissolved, then every symbol but the API (tw_*) becomes local:
# none can clash with, or be discarded in favour of, a program's own copy.
"$cc" -r -nostdlib -Wl,-d -Wl,--force-group-allocation -o "$merged" \
  "${static_only[@]}" "${objects[@]}" \
  -Wl,--start-group "${archives[@]}" -l:libstdc++.a -lgcc -lgcc_eh -Wl,--end-group
"$objcopy" --wildcard --keep-global-symbol='tw_*' "$merged"
rm -f "$static_library"
"$ar" rcsD "$static_library" "$merged"

# libtracewire.so: Debian compiles its static Abseil libraries as position-dependent
# executable code (local-exec thread-local storage, data reached as if copy-relocated),
# which a shared object cannot contain. The shared library therefore embeds the other
# static libraries (zstd) and links Abseil's and libstdc++'s shared
# libraries. Only tw_* is exported.
embedded=()
shared_abseil=()
for flag in "${archives[@]}"; do
  name=${flag#-l:lib}
  name=${name%.a}
  case $name in
    absl_*) shared_abseil+=("-l$name") ;;
    *) embedded+=("$flag") ;;
  esac
done
# shellcheck disable=SC2086  # the system flags are separate words
"$cc" -shared -o "$shared_library" "${objects[@]}" -Wl,-soname,"$soname" \
  -Wl,--version-script="$version_script" -Wl,--no-undefined -Wl,-z,relro \
  -Wl,--start-group "${embedded[@]}" -Wl,--end-group \
  -Wl,--as-needed "${shared_abseil[@]}" -lstdc++ $system_flags -Wl,--no-as-needed
