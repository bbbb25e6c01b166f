#!/usr/bin/env bash
# run.sh: build bench/solver into bench/out/build-solver and run it (see
# solver_bench.c).  Usage: bench/solver/run.sh [WIDTH [PERIOD [GS_SWEEPS]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/bench.sh"
bench_build solver
bench_machine
echo
"$build/solver_bench" "$@"
