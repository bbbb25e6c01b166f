#!/usr/bin/env bash
# run.sh: batch throughput (mappings per second) on 10,000 generated mappings
# (the paper's Table 1 protocol: 10 stages, 20 processors, times 5..15) with
# --jobs 1 and 2, against the peer a user would otherwise write: one
# `streamtp eval --json` process per file, run by xargs with as many
# parallel processes.  Each timing is the median of REPEAT runs (default 3).
#
# usage: bench/batch/run.sh [COUNT]     (default 10000)
# env:   STREAMTP (default build/streamtp, built in Release when missing),
#        REPEAT, OUT (default bench/out/batch)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
count=${1:-10000}
repeat=${REPEAT:-3}
out=${OUT:-$root/bench/out/batch}
bin=${STREAMTP:-$root/build/streamtp}
if [ ! -x "$bin" ]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$root/build" -j2 --target streamtp > /dev/null
fi
mkdir -p "$out"
maps=$out/maps-$count
if [ ! -f "$maps/.done" ]; then
  rm -rf "$maps"
  "$bin" generate --stages 10 --processors 20 --comp 5..15 --comm 5..15 --count "$count" \
    --seed 1 -o "$maps"
  touch "$maps/.done"
fi

# "wall cpu" seconds of the run with the median wall time among REPEAT runs
# (cpu = user + system of the command and its children: a loaded machine
# stretches the wall time much more than the CPU time).
median_time() {
  local runs=() tf
  tf=$(mktemp)
  for _ in $(seq 1 "$repeat"); do
    TIMEFORMAT='%R %U %S'
    { time "$@" > /dev/null 2>&1; } 2> "$tf" || true
    runs+=("$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$tf")")
  done
  rm -f "$tf"
  printf '%s\n' "${runs[@]}" | sort -g | sed -n "$(((repeat + 1) / 2))p"
}

peer() { # peer JOBS ARGS...: one eval process per file
  local jobs=$1
  shift
  find "$maps" -name '*.json' -print0 | xargs -0 -n 1 -P "$jobs" "$bin" eval --json "$@"
}

report=$out/results.txt
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $count mappings (10 stages, 20 processors, times 5..15), median of $repeat runs"
  printf '%-28s %4s %8s %8s %8s %8s %8s\n' config jobs wall_s cpu_s "maps/s" "cpu_us" "vs_peer"
} | tee "$report"
line() { # line LABEL JOBS "WALL CPU" [PEER_WALL]
  awk -v c="$1" -v j="$2" -v n="$count" -v t="$3" -v p="${4:-}" 'BEGIN {
    split(t, a, " ")
    printf "%-28s %4d %8.3f %8.3f %8.0f %8.0f", c, j, a[1], a[2], n / a[1], 1e6 * a[2] / n
    if (p != "") { split(p, b, " "); printf " %7.1fx", b[1] / a[1] }
    printf "\n" }' | tee -a "$report"
}
for config in "overlap, exponential auto" "both models, no exponential"; do
  args=()
  [ "$config" = "both models, no exponential" ] && args=(--model both --exp-method none)
  for jobs in 1 2; do
    b=$(median_time "$bin" batch "$maps" --jobs "$jobs" -q -o "$out/rows.csv" "${args[@]}")
    p=$(median_time peer "$jobs" "${args[@]}")
    line "$config" "$jobs" "$b" "$p"
    line "  peer: xargs -P eval --json" "$jobs" "$p"
  done
done
echo "results in $report"
