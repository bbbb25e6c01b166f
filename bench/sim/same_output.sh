#!/usr/bin/env bash
# same_output.sh OLD NEW: `streamtp simulate --json` of two binaries must print
# the same numbers (bit for bit: the JSON keeps 17 significant digits) on
# every example and bench mapping, both models, several laws, the associated
# case, replications and other seeds.  Timing keys are removed before the
# comparison.  Exit 1 on the first difference.
set -euo pipefail
old=$1 new=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${DATASETS:-20000}
files=("$root"/examples/*.json "$root"/bench/simgrid/mappings/*.json)
variants=(
  "--law exp" "--law det" "--law gamma:cv=0.5" "--law uniform:spread=0.5"
  "--law lognormal:cv=1.5" "--law weibull:cv=2" "--law erlang:k=3" "--law hyperexp:cv=2"
  "--law normal:cv=0.3" "--law beta:a=2,b=5" "--law exp --seed 7"
  "--law exp --replications 5" "--associated --law gamma:cv=0.5"
  "--associated --law exp --resource-law uniform:spread=0.2 --replications 3"
  "--law exp --batches 7 --warmup 13"
)
strip() { sed -E 's/"(seconds|cpu_seconds|bounds_seconds|firings_per_second|firings_per_cpu_second)":[^,}]*,?//g'; }
count=0
for f in "${files[@]}"; do
  for model in overlap strict; do
    for v in "${variants[@]}"; do
      # shellcheck disable=SC2086
      a=$("$old" simulate --json --no-bounds --model $model --datasets $n $v "$f" 2>&1 | strip || true)
      # shellcheck disable=SC2086
      b=$("$new" simulate --json --no-bounds --model $model --datasets $n $v "$f" 2>&1 | strip || true)
      if [[ "$a" != "$b" ]]; then
        echo "DIFFERENT: $f --model $model $v"
        echo " old: $a"
        echo " new: $b"
        exit 1
      fi
      count=$((count + 1))
    done
  done
done
echo "same output on $count runs"
