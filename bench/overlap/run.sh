#!/usr/bin/env bash
# run.sh: build bench/overlap into bench/out/build-overlap and print the table
# of stp_evaluate times against the number of paths (see overlap_bench.c).
# Usage: bench/overlap/run.sh [MIN_SECONDS_PER_CELL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../out/build-overlap
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 >/dev/null
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date +%F)."
echo
"$build/overlap_bench" "$@"
