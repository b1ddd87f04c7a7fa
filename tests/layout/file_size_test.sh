#!/bin/bash
# No source file (.h, .cc) of format/, runtime/, reader/ or tools/ is over 700 lines: a file
# that long holds more than one concept (docs/architecture.md). Lists every file over the
# limit.
set -u

limit=700
runfiles="${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-tracewire}"
readme="$runfiles/README.md"
# The runfile links to the workspace's own README.md: its folder is the source tree.
root="$(dirname "$(readlink -f "$readme")")"
for dir in format runtime reader tools; do
  if [[ ! -d "$root/$dir" ]]; then
    echo "file_size_test: FAIL: cannot find the source tree ($root/$dir is not a folder;" \
      "README.md resolves to $(readlink -f "$readme"))" >&2
    exit 1
  fi
done

cd "$root" || exit 1
checked=0
over=0
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  lines=$(wc -l <"$file")
  if ((lines > limit)); then
    echo "FAIL: $file has $lines lines (at most $limit)"
    over=$((over + 1))
  fi
done < <(find format runtime reader tools \( -name '*.cc' -o -name '*.h' \) -type f -print0)

if ((checked == 0)); then
  echo "file_size_test: FAIL: no source file found under $root" >&2
  exit 1
fi
if ((over != 0)); then
  echo "file_size_test: $over of $checked source files are over $limit lines" >&2
  exit 1
fi
echo "file_size_test: PASS: $checked source files, each at most $limit lines"
