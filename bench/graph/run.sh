#!/usr/bin/env bash
# run.sh: build bench/graph into bench/out/build-graph and print its tables
# (see graph_bench.c).  Usage: bench/graph/run.sh [REPEATS]   (default 3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/bench.sh"
bench_build graph
bench_machine
echo
"$build/graph_bench" "$@"
