#!/usr/bin/env bash
# interrupt.sh: a long computation shows its progress on standard error after
# a second, and Ctrl-C stops it cleanly: exit 130, "streamtp: interrupted",
# nothing half-written on standard output.  The Strict chain of teams 13,
# 17, 19, 23 enumerates for about ten seconds of CPU before a 2100M budget
# stops it (--max-states raised: the default of 2 million is reached in
# two seconds since the enumeration got faster): time enough.
# Usage: interrupt.sh PATH/TO/streamtp
set -uo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi; }

"$bin" eval --json --max-memory 2100M --max-states 1000000000 inputs/strict-13-17-19-23.json >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 900); do
  grep -q "enumerating the Strict markings" "$tmp/err" 2>/dev/null && break
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
# The lower bound on the markings (17043) is said only while the count is
# below it: "at least 18 in all" after millions said nothing (issue 25).
check "progress on standard error after a second, its lower bound only while above the count" \
  python3 -c '
import re, sys
lines = re.findall(r"streamtp: enumerating the Strict markings: (\d+) so far, \d+/s(?:, at least (\d+) in all)?, ",
                   open(sys.argv[1]).read())
assert lines, "no progress line"
assert all(not est or (int(est) == 17043 and int(done) < 17043) for done, est in lines), lines' "$tmp/err"
check "Ctrl-C: exit status 130" test $rc -eq 130
check "Ctrl-C: says so" grep -qx "streamtp: interrupted" "$tmp/err"
check "Ctrl-C: no half record on standard output, the cut input's record says so" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) <= 1, lines
for l in lines:  # a whole record, as batch writes the rows the interrupt cut short
    r = json.loads(l)
    assert r["status"] == "EINTERRUPTED" and r["error"], r' "$tmp/out"
# optimize: the heuristic on 20 stages x 100 processors runs until its
# 600 s budget; its progress line comes after 5 s (not a terminal), then
# Ctrl-C prints the best mapping so far, whole, and exits 130.
"$bin" generate --stages 20 --processors 100 --all-links --seed 3 -o "$tmp/gen" >/dev/null
"$bin" optimize --json --method heuristic --time-limit 600 "$tmp/gen/map-00001.json" \
  >"$tmp/opt" 2>"$tmp/opterr" &
pid=$!
for _ in $(seq 1 900); do
  grep -q "streamtp: optimizing: best" "$tmp/opterr" 2>/dev/null && break
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
check "optimize: progress with the best, the bound and the gap" \
  grep -q "streamtp: optimizing: best [0-9.e-]*, bound [0-9.e-]*, gap [0-9.]* %, candidates: [0-9]* so far" "$tmp/opterr"
check "optimize: Ctrl-C: exit status 130" test $rc -eq 130
check "optimize: Ctrl-C: says so" grep -q "streamtp: interrupted: the best mapping found so far is above" "$tmp/opterr"
check "optimize: Ctrl-C: the best so far, one whole JSON line" \
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["interrupted"] and d["value"] >= d["start"]' "$tmp/opt"
exit $fail
