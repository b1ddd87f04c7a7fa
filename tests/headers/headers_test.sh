#!/bin/bash
# The public headers stand alone and stay warning-free for C and C++ programs: each header
# compiled by itself, and every_call.c / every_call.cc (every macro and C++ helper, every
# argument type of tracewire::Data), under GCC and Clang, as C89, C99, C11, C17 and C++11,
# C++14, C++17, C++20, with -Wall -Wextra -Werror -pedantic.
set -u

runfiles="${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-tracewire}"
include_dir="$runfiles/include"
here="$runfiles/tests/headers"
work="${TEST_TMPDIR:-$(mktemp -d)}"

# Finds compiler `$1` on PATH or in the usual directories; fails the test if it is missing.
find_compiler() {
  local name="$1" dir
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return 0
  fi
  for dir in /usr/bin /usr/local/bin /bin; do
    if [[ -x "$dir/$name" ]]; then
      echo "$dir/$name"
      return 0
    fi
  done
  echo "headers_test: FAIL: compiler '$name' not found (PATH=$PATH, /usr/bin, /usr/local/bin);" \
    "this test needs gcc, g++, clang and clang++" >&2
  return 1
}

gcc_c=$(find_compiler gcc) || exit 1
gcc_cxx=$(find_compiler g++) || exit 1
clang_c=$(find_compiler clang) || exit 1
clang_cxx=$(find_compiler clang++) || exit 1

c_compilers=("$gcc_c" "$clang_c")
cxx_compilers=("$gcc_cxx" "$clang_cxx")
c_standards=(c89 c99 c11 c17)
cxx_standards=(c++11 c++14 c++17 c++20)
warnings=(-Wall -Wextra -Werror -pedantic)

failures=0
runs=0

# Compiles source `$3` with compiler `$1` as standard `$2` (language from the extension).
compile() {
  local compiler="$1" standard="$2" source="$3" log="$work/compile.log"
  runs=$((runs + 1))
  if "$compiler" -std="$standard" "${warnings[@]}" -O2 -I"$include_dir" -c "$source" \
      -o "$work/out.o" >"$log" 2>&1; then
    return 0
  fi
  failures=$((failures + 1))
  echo "FAIL: $(basename "$compiler") -std=$standard ${warnings[*]} $(basename "$source")"
  sed 's/^/    /' "$log"
}

printf '#include "tracewire/tracewire.h"\n' >"$work/tracewire_h_alone.c"
printf '#include "tracewire/tracewire.h"\n' >"$work/tracewire_h_alone.cc"
printf '#include "tracewire/tracewire.hpp"\n' >"$work/tracewire_hpp_alone.cc"

for compiler in "${c_compilers[@]}"; do
  for standard in "${c_standards[@]}"; do
    compile "$compiler" "$standard" "$work/tracewire_h_alone.c"
    compile "$compiler" "$standard" "$here/every_call.c"
  done
done
for compiler in "${cxx_compilers[@]}"; do
  for standard in "${cxx_standards[@]}"; do
    compile "$compiler" "$standard" "$work/tracewire_h_alone.cc"
    compile "$compiler" "$standard" "$work/tracewire_hpp_alone.cc"
    compile "$compiler" "$standard" "$here/every_call.cc"
  done
done

echo "headers_test: $((runs - failures)) of $runs compilations clean" \
  "($("$gcc_c" -dumpfullversion), $("$clang_c" --version | head -n 1))"
[[ $failures -eq 0 ]]
