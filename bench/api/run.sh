#!/usr/bin/env bash
# run.sh: build bench/api into bench/out/build-api and print evaluations per
# second through the C builder and through JSON text (see api_bench.c).
# Usage: bench/api/run.sh [SECONDS_PER_CELL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../out/build-api
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target api_bench >/dev/null
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date +%F)."
echo
"$build/api_bench" "$@"
