#!/usr/bin/env bash
# run.sh: build bench/solver into bench/out/build-solver and run it (see
# solver_bench.c).  Usage: bench/solver/run.sh [WIDTH [PERIOD [GS_SWEEPS]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../out/build-solver
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 >/dev/null
echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date +%F), load $(cut -d' ' -f1-3 /proc/loadavg)."
"$build/solver_bench" "$@"
