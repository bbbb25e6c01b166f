#!/usr/bin/env bash
# run.sh: build bench/bcast into bench/out/build-bcast and print the table of
# heuristic and partition times (see bcast_bench.c).
# Usage: bench/bcast/run.sh [CLUSTERS [MACHINES [REPEATS]]]   (default 200 2000 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/bench.sh"
bench_build bcast bcast_bench
bench_machine
echo
"$build/bcast_bench" "$@"
