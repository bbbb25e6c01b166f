#!/usr/bin/env bash
# run.sh: build bench/bcast into bench/out/build-bcast and print the table of
# heuristic and partition times (see bcast_bench.c).
# Usage: bench/bcast/run.sh [CLUSTERS [MACHINES [REPEATS]]]   (default 200 2000 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../out/build-bcast
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target bcast_bench >/dev/null
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date +%F)."
echo
"$build/bcast_bench" "$@"
