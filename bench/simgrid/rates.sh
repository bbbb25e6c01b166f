#!/usr/bin/env bash
# rates.sh: firings per second of `streamtp simulate` for each law family
# (best of 3 runs of 10^7 data sets, --no-bounds), on the mappings given
# (default: examples/example-a.json and mappings/random10.json), both models.
# Usage: bench/simgrid/rates.sh [MAPPING...]   (BUILD=dir to pick the build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${BUILD:-$root/build}/streamtp
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$root/examples/example-a.json" "$here/mappings/random10.json")
laws=(det exp uniform:spread=0.5 gamma:cv=0.5 weibull:cv=0.5 lognormal:cv=0.5 normal:cv=0.3
      beta:a=2,b=3 erlang:k=3 hyperexp:cv=2 "empirical:$root/examples/measured-times.txt")
printf '| law |'
for f in "${files[@]}"; do printf ' %s overlap | %s strict |' "$(basename "$f" .json)" \
  "$(basename "$f" .json)"; done
printf '\n|---|'
for f in "${files[@]}"; do printf -- '---|---|'; done
printf '\n'
for law in "${laws[@]}"; do
  printf '| `%s` |' "${law/#empirical:*/empirical:measured-times.txt}"
  for f in "${files[@]}"; do
    for model in overlap strict; do
      best=0
      for _ in 1 2 3; do
        r=$("$bin" simulate "$f" --model "$model" --law "$law" --datasets 1e7 --no-bounds --json |
            python3 -c 'import json,sys; print(int(json.load(sys.stdin)["firings_per_cpu_second"]))')
        [ "$r" -gt "$best" ] && best=$r
      done
      printf ' %d |' $((best / 1000000))
    done
  done
  printf '\n'
done
echo "(million firings per CPU second; one firing = one transition of one data set)"
