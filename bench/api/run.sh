#!/usr/bin/env bash
# run.sh: build bench/api into bench/out/build-api and print evaluations per
# second through the C builder and through JSON text (see api_bench.c).
# Usage: bench/api/run.sh [SECONDS_PER_CELL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common/bench.sh"
bench_build api api_bench
bench_machine
echo
"$build/api_bench" "$@"
