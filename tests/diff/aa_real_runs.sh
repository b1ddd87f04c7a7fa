#!/usr/bin/env bash
# Measures `tracewire diff`'s A/A false-positive rate on real runs: records 40 unchanged
# runs of the thread-pool example, then compares 20 pairs of single runs and 4 pairs of
# 5-run sides, and prints how many comparisons (and keys) were flagged.
# usage: tests/diff/aa_real_runs.sh   (after bazel build //tools:tracewire //examples/threadpool)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tw=$root/bazel-bin/tools/tracewire
tp=$root/bazel-bin/examples/threadpool/threadpool
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq -w 0 39); do
  mkdir -p "$work/r$i"
  TRACEWIRE=$work/r$i/t.twr TRACEWIRE_CATEGORIES=-debug "$tp" 2000 64 >/dev/null
done
# Prints "flagged tested" for one comparison (keys on both sides); the flagged keys' names
# go to $work/flagged.
compare() {
  "$tw" diff --format=csv "$1" "$2" 2>/dev/null |
    awk -F, -v out="$work/flagged" 'NR > 1 && $3 != "new" && $3 != "gone" { n++
               if ($3 == "slower" || $3 == "faster") { f++; print $2 >> out } }
             END { print f + 0, n + 0 }'
}
report() {  # label, then "flagged tested" lines on stdin
  awk -v label="$1" '{ c++; if ($1 > 0) any++; f += $1; n += $2 }
    END { printf "%s: %d of %d comparisons flag a key; %d of %d keys flagged\n", label, any, c, f, n }'
}
for i in $(seq 0 2 38); do
  compare "$work/r$(printf %02d "$i")" "$work/r$(printf %02d $((i + 1)))"
done | report "1 run a side"
[ -s "$work/flagged" ] && sort "$work/flagged" | uniq -c | sed 's/^/  flagged: /' && rm "$work/flagged"
for c in 0 1 2 3; do
  mkdir -p "$work/s$c/a" "$work/s$c/b"
  for j in 0 1 2 3 4; do
    n=$((c * 10 + j * 2))
    ln -s "$work/r$(printf %02d "$n")" "$work/s$c/a/$j"
    ln -s "$work/r$(printf %02d $((n + 1)))" "$work/s$c/b/$j"
  done
  compare "$work/s$c/a" "$work/s$c/b"
done | report "5 runs a side"
[ -s "$work/flagged" ] && sort "$work/flagged" | uniq -c | sed 's/^/  flagged: /'
true
