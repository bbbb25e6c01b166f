#!/usr/bin/env bash
# instructions.sh OLD NEW: instructions per firing of `streamtp simulate`
# (valgrind --tool=callgrind, whole process, 50000 data sets after 5000 of
# warm-up, --no-bounds) for two binaries on the bench mappings, both models,
# det, exp and gamma laws.  Counts do not depend on the machine's load, so
# they settle what the noisy timings of run.sh cannot.
set -euo pipefail
old=$1 new=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
n=50000
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" simulate "$2" --model "$3" \
    --law "$4" --datasets $n --no-bounds --json 2>&1 >/dev/null | awk '/refs:/ {gsub(",", "", $NF); print $NF}'
}
echo "| mapping | model | law | firings | old instr/firing | new instr/firing | new/old |"
echo "|---|---|---|---|---|---|---|"
for f in "$root/examples/example-a.json" "$root/bench/simgrid/mappings/chain7.json" \
         "$root/bench/simgrid/mappings/pattern5x7.json" "$root/bench/simgrid/mappings/random20.json"; do
  firings=$("$new" simulate "$f" --datasets $n --no-bounds --json |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["simulation"]["firings"])')
  for model in overlap strict; do
    for law in det exp gamma:cv=0.5; do
      a=$(count "$old" "$f" "$model" "$law") b=$(count "$new" "$f" "$model" "$law")
      python3 -c 'import sys; f,a,b=map(float,sys.argv[4:7]); print("| %s | %s | %s | %d | %.1f | %.1f | %.3f |" % (sys.argv[1],sys.argv[2],sys.argv[3],f,a/f,b/f,b/a))' \
        "$(basename "$f" .json)" "$model" "$law" "$firings" "$a" "$b"
    done
  done
done
