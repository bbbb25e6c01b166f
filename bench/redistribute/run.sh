#!/usr/bin/env bash
# run.sh: the redistribution timings of bench/redistribute/README.md: grid plus
# stepwise schedule for P = Q = 512 and 2048, and the exact optimum of the
# paper's Example 3.  Builds the Release library first when it is missing.
# usage: bench/redistribute/run.sh [REPEATS]   (default 5; medians are printed)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${1:-5}
if [ ! -f "$root/build/libstreamtp.a" ]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$root/build" -j2 --target streamtp_lib > /dev/null
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$root/include" "$here/bench.c" \
   "$root/build/libstreamtp.a" -lgsl -lgslcblas -lm -lpthread -ldl -o "$tmp/bench"
for size in 512 2048; do
  for rs in "64 48" "3 5" "7 11"; do
    "$tmp/bench" $size $size $rs stepwise "$n"
  done
done
"$tmp/bench" 15 15 3 5 optimal "$n"
"$tmp/bench" 15 6 2 3 optimal "$n"
"$tmp/bench" 16 16 7 11 optimal "$n"
