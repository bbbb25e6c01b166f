#!/usr/bin/env bash
# run.sh: build bench/graph into bench/out/build-graph and print its tables
# (see graph_bench.c).  Usage: bench/graph/run.sh [REPEATS]   (default 3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../out/build-graph
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 >/dev/null
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date +%F)."
echo
"$build/graph_bench" "$@"
