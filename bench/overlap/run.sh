#!/usr/bin/env bash
# run.sh: build bench/overlap into bench/out/build-overlap and print the table
# of stp_evaluate times against the number of paths (see overlap_bench.c).
# Usage: bench/overlap/run.sh [MIN_SECONDS_PER_CELL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/bench.sh"
bench_build overlap
bench_machine
echo
"$build/overlap_bench" "$@"
