#!/usr/bin/env bash
# bench/explain/run.sh: the time of the sensitivities against one evaluation,
# their agreement with finite differences and a 50-point sweep, on Example A
# (Overlap and Strict), the Strict 5x6 chain (2,580,480 states) and a
# 20 x 100 Overlap mapping (streamtp generate, seed 1); one JSON line each.
# Usage: bench/explain/run.sh [RUNS]   (medians of RUNS runs, default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
out=$root/bench/out
mkdir -p "$out"
cmake -S "$root/bench/explain" -B "$out/build-explain" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/build-explain" -j2 >/dev/null
b=$out/build-explain/explain_bench
python3 "$root/bench/ctmc/make_strict.py" 5,6 1 > "$out/strict-5-6.json"
rm -rf "$out/explain-20x100"
"$out/build-explain/streamtp/streamtp" generate --stages 20 --processors 100 --count 1 --seed 1 \
  -o "$out/explain-20x100" >/dev/null 2>&1 ||
  "$root/build/streamtp" generate --stages 20 --processors 100 --count 1 --seed 1 \
    -o "$out/explain-20x100" >/dev/null
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$root" rev-parse --short HEAD)"
"$b" "$root/examples/example-a.json" --runs "$runs" --fd 100 --sweep 50
"$b" "$root/examples/example-a.json" --model strict --runs "$runs" --fd 100 --sweep 50
"$b" "$out/explain-20x100/map-00001.json" --runs "$runs" --fd 10 --sweep 50
"$b" "$out/strict-5-6.json" --runs 1 --sweep 50
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
