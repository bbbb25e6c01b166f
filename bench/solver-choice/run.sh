#!/usr/bin/env bash
# run.sh: the solver-choice cases of issue 35, old and new build interleaved.
# Usage: bench/solver-choice/run.sh OLD_STREAMTP NEW_STREAMTP [REPEATS]
# Case 1: generate --stages 4 --processors 7 --seed 6 (map-00001), Strict,
#   hyperexp:cv=2: a 19,580-state chain without levels (UMFPACK before).
# Case 2: examples/example-a.json, Strict, hyperexp:cv=2: 41,412 states
#   without levels (Gauss-Seidel before and after: above 20,000 states).
# Each run: /usr/bin/time -v (wall, user+sys CPU, peak RSS) and the solver;
# then compare.py checks every value of Example A and of the generated
# mappings, both models, exp, erlang:k=3 and hyperexp:cv=2, to 1e-12.
set -euo pipefail
old=$(realpath "$1"); new=$(realpath "$2"); reps=${3:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$new" generate --stages 4 --processors 7 --seed 6 -o "$tmp/g" > /dev/null
"$new" generate --stages 4 --processors 7 --seed 6 --count 6 -o "$tmp/a" > /dev/null
"$new" generate --stages 3 --processors 5 --seed 1 --count 4 -o "$tmp/b" > /dev/null
cases=("$tmp/g/map-00001.json" "$top/examples/example-a.json")
one() { # BINARY FILE -> "wall cpu rss_MB solver sweeps"
  /usr/bin/time -v "$1" eval "$2" --model strict --law hyperexp:cv=2 --json \
    > "$tmp/out" 2> "$tmp/time"
  python3 - "$tmp/out" "$tmp/time" <<'PY'
import json, re, sys
rec = json.loads(open(sys.argv[1]).read().splitlines()[-1])["exact_law"]
t = open(sys.argv[2]).read()
def field(name):
    return re.search(re.escape(name) + r": (.*)", t).group(1)
wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
wall = float(wall[-1]) + 60 * float(wall[-2])
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
print(f"{wall:.2f} | {cpu:.2f} | {rss:.0f} | {rec['states']} | {rec['solver']} | "
      f"{rec.get('sweeps', 0)} | {rec.get('solver_reason', '-')} | {rec['throughput']!r}")
PY
}
echo "| case | build | wall s | CPU s | peak RSS MB | states | solver | sweeps | reason | throughput |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for r in $(seq "$reps"); do
  for f in "${cases[@]}"; do
    for b in old new; do
      bin=$old; [ $b = new ] && bin=$new
      echo "| $(basename "$f") | $b | $(one "$bin" "$f") |"
    done
  done
done
python3 "$top/bench/solver-choice/compare.py" "$old" "$new" "$top/examples/example-a.json" \
  "$tmp"/a/*.json "$tmp"/b/*.json
