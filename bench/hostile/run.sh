#!/usr/bin/env bash
# run.sh: time `streamtp eval` on the hostile inputs of make_inputs.py (wall
# seconds and peak memory, GNU time).  Usage: bench/hostile/run.sh [STREAMTP]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/streamtp}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$here/make_inputs.py" "$tmp"
for f in stages100k coprime huge-work; do
  /usr/bin/time -f "$f: %e s, %M KB, exit %x" "$bin" eval "$tmp/$f.json" >/dev/null 2>"$tmp/err" || true
  tail -1 "$tmp/err"; head -1 "$tmp/err" | cut -c1-160
done
