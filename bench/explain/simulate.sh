#!/usr/bin/env bash
# bench/explain/simulate.sh: what simulate --utilization and --latency cost
# on top of a plain simulate: the CPU seconds of the whole command (bounds
# skipped) on Example A, Overlap and Strict, N data sets (default 2e7),
# plain, --utilization (the same run, observed), --latency (a second,
# throttled run and the quantiles), both; medians of 3 runs.
# Usage: bench/explain/simulate.sh [PATH/TO/streamtp] [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build/streamtp} n=${2:-20000000}
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$root" rev-parse --short HEAD), $n data sets"
cpu() { # the median of 3 runs' user + system seconds
  for _ in 1 2 3; do
    /usr/bin/time -f "%U %S" "$bin" simulate "$root/examples/example-a.json" --no-bounds \
      --datasets "$n" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'
  done | sort -g | sed -n 2p
}
for model in overlap strict; do
  plain=$(cpu --model $model)
  for opts in "" "--utilization" "--latency" "--utilization --latency"; do
    # shellcheck disable=SC2086
    t=$(cpu --model $model $opts)
    printf '{"model": "%s", "options": "%s", "cpu_seconds": %s, "ratio": %s}\n' "$model" \
      "$opts" "$t" "$(awk -v a="$t" -v b="$plain" 'BEGIN {printf "%.2f", a / b}')"
  done
done
