#!/usr/bin/env bash
# run.sh: build bench/reduce into bench/out/build-reduce and print the times
# of the reduction trees: one build at n = 10^6 per tree (median of 5), the
# sweep n = 1..10^5 through the command line (--brief, one incremental pass)
# and from independent builds up to 3000 (the cost the sweep avoids), and
# the largest n whose exact exponential makespan fits the default state cap
# (10^6 order ideals) for each tree, with its time.
# Usage: bench/reduce/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../common/bench.sh"
bench_build reduce
bin=${STREAMTP:-$root/build/streamtp}
if [ ! -x "$bin" ]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$root/build" -j2 --target streamtp > /dev/null
fi
bench_machine
echo
"$build/reduce_bench" single 1000000 sweep 3000 reps 5
echo
secs() { /usr/bin/time -f %e "$@" 2>&1 > /dev/null | tail -1; }
echo "streamtp reduce --n 1..100000 --d 3 --c 1 --exp-method none --json --brief: $(secs "$bin" reduce --n 1..100000 --d 3 --c 1 --exp-method none --json --brief) s"
echo "streamtp reduce --n 1000000 --d 3 --c 1 --exp-method none --json (10 MB of output): $(secs "$bin" reduce --n 1000000 --d 3 --c 1 --exp-method none --json) s"
echo
echo "| tree | d | c | largest n with E_exp under 10^6 ideals | ideals | E_exp | seconds |"
echo "|---|---|---|---|---|---|---|"
for tree in optimal binomial fibonacci; do
  best=""
  for n in $(seq 2 64); do
    start=$(date +%s.%N)
    line=$("$bin" reduce --n "$n" --d 1 --c 2 --tree "$tree" --json --brief)
    end=$(date +%s.%N)
    e=$(python3 -c 'import json,sys; o=json.loads(sys.argv[1])["exponential"]; print(o.get("makespan"), o.get("states"))' "$line")
    [ "${e%% *}" = None ] && break
    best="| $tree | 1 | 2 | $n | ${e#* } | ${e%% *} | $(python3 -c "print('%.2f' % ($end - $start))") |"
  done
  echo "$best"
done
