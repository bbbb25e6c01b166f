#!/usr/bin/env bash
# run.sh: firings per CPU second of `streamtp simulate` before and after a
# change, in the same run: OLD is built from a git revision (default main)
# into $TMPDIR, NEW is build/streamtp of this tree (BUILD=dir to pick another).
# For each mapping, model and law: median of REPS runs (default 5) of
# DATASETS data sets (default 2e6), old and new interleaved.
# Usage: bench/sim/run.sh [REV]     e.g. bench/sim/run.sh main
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rev=${1:-main}
new=${BUILD:-$root/build}/streamtp
reps=${REPS:-5}
n=${DATASETS:-2e6}
old_src=$(mktemp -d "${TMPDIR:-/tmp}/streamtp-old.XXXXXX")
trap 'rm -rf "$old_src"' EXIT
git -C "$root" archive "$rev" | tar -x -C "$old_src"
cmake -S "$old_src" -B "$old_src/build" -DCMAKE_BUILD_TYPE=Release -DSTP_BUILD_TESTS=OFF >/dev/null
cmake --build "$old_src/build" -j2 --target streamtp >/dev/null
old=$old_src/build/streamtp
[ -x "$new" ] || cmake --build "${BUILD:-$root/build}" -j2 --target streamtp >/dev/null
rate() {
  "$1" simulate "$2" --model "$3" --law "$4" --datasets "$n" --no-bounds --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["firings_per_cpu_second"])'
}
median() { python3 -c 'import sys,statistics; print(statistics.median(map(float,sys.argv[1:])))' "$@"; }
echo "old: $rev ($(git -C "$root" rev-parse --short "$rev")), new: $new, $n data sets, median of $reps"
echo
echo "| mapping | model | law | old Mfirings/s | new Mfirings/s | new/old |"
echo "|---|---|---|---|---|---|"
for f in "$root/examples/example-a.json" "$root/bench/simgrid/mappings/chain7.json" \
         "$root/bench/simgrid/mappings/pattern5x7.json" "$root/bench/simgrid/mappings/random20.json"; do
  for model in overlap strict; do
    for law in det exp gamma:cv=0.5; do
      a=() b=()
      for _ in $(seq "$reps"); do
        a+=("$(rate "$old" "$f" "$model" "$law")")
        b+=("$(rate "$new" "$f" "$model" "$law")")
      done
      ma=$(median "${a[@]}") mb=$(median "${b[@]}")
      python3 -c 'import sys; a,b=float(sys.argv[4]),float(sys.argv[5]); print("| %s | %s | %s | %.0f | %.0f | %.2f |" % (sys.argv[1],sys.argv[2],sys.argv[3],a/1e6,b/1e6,b/a))' \
        "$(basename "$f" .json)" "$model" "$law" "$ma" "$mb"
    done
  done
done
