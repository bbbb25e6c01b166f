#!/usr/bin/env bash
# batch.sh: end-to-end checks of `generate` and `batch` that take more than
# one command each (the single-command cases live in cases/):
#   generate is reproducible and independent of --count, and refuses a
#   directory holding PREFIX-*.json files of another run (unless --force);
#   batch rows follow the sorted input order, whatever --jobs;
#   batch rows agree with `eval --json`, and CSV with JSON lines;
#   Ctrl-C (SIGINT) stops a batch with status 130, keeping the rows in order;
#   a terminal gets a progress bar with rate and ETA.
# Usage: batch.sh PATH/TO/streamtp
set -uo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
total=0

check() { # check DESCRIPTION COMMAND...: run, report ok or FAIL
  local what=$1
  shift
  total=$((total + 1))
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what"
    fail=$((fail + 1))
  fi
}

# The CSV rows without the timing column, which differs from run to run.
strip_seconds() {
  python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
col = rows[0].index("seconds")
w = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    w.writerow(r[:col] + r[col + 1:])' "$1"
}

# ---- generate ----------------------------------------------------------------
"$bin" generate --stages 4 --processors 9 --count 5 --seed 5 -o g1 &&
  "$bin" generate --stages 4 --processors 9 --count 5 --seed 5 -o g2 &&
  "$bin" generate --stages 4 --processors 9 --count 3 --seed 5 -o g3 &&
  "$bin" generate --stages 4 --processors 9 --count 5 --seed 6 -o g4
check "generate runs" test $? -eq 0
check "generate writes map-00001 .. map-00005" \
  test "$(ls g1 | tr '\n' ' ')" = "map-00001.json map-00002.json map-00003.json map-00004.json map-00005.json "
check "generate: same seed, same files" diff -r g1 g2
check "generate: mapping k does not depend on --count" \
  bash -c 'for k in 1 2 3; do cmp -s g1/map-0000$k.json g3/map-0000$k.json || exit 1; done'
check "generate: another seed, other files" bash -c '! cmp -s g1/map-00001.json g4/map-00001.json'
check "generate: the files are valid mappings" \
  "$bin" eval --exp-method none g1/map-00001.json g4/map-00005.json > /dev/null
cp -r g4 g4.before
"$bin" generate --stages 4 --processors 9 --count 3 --seed 5 -o g4 2> g4.err
check "generate into a directory holding map-*.json: exit 2" test $? -eq 2
check "generate into a directory holding map-*.json: says so and suggests --force" \
  grep -q "g4 already holds 5 files map-\*.json (map-0000[1-5].json, ...) from another run.*--force" g4.err
check "generate refused: the directory is untouched" diff -r g4 g4.before
"$bin" generate --stages 4 --processors 9 --count 3 --seed 5 --prefix other -o g4
check "generate: another --prefix in the same directory is allowed" \
  test "$(ls g4 | wc -l)" -eq 8
"$bin" generate --stages 4 --processors 9 --count 3 --seed 5 --force -o g4
check "generate --force overwrites map-00001..3 and leaves map-00004..5" \
  bash -c 'cmp -s g4/map-00001.json g3/map-00001.json && cmp -s g4/map-00005.json g4.before/map-00005.json'

# ---- batch: order, jobs, consistency -------------------------------------------
mkdir -p in/b in/a
"$bin" generate --stages 5 --processors 12 --count 12 --seed 7 -o in/b
"$bin" generate --stages 3 --processors 8 --count 8 --seed 8 --model strict --prefix s -o in/a
printf '{"stages": 1}' > in/a/broken.json
cp "$here/data/batch/sub/two.json" in/two.json
"$bin" batch in --jobs 1 -q -o j1.csv > j1.out 2> j1.err
rc1=$?
"$bin" batch in --jobs 2 -q > j2.csv 2> j2.err
rc2=$?
check "batch: exit status 2 with a bad file (jobs 1 and 2)" test "$rc1$rc2" = 22
check "batch: the same rows with 1 and 2 jobs" \
  diff <(strip_seconds j1.csv) <(strip_seconds j2.csv)
check "batch: rows in sorted path order" \
  diff <(find in -name '*.json' | LC_ALL=C sort) \
  <(python3 -c 'import csv,sys; [print(r["file"]) for r in csv.DictReader(open(sys.argv[1]))]' j1.csv)
check "batch: the bad file has its error, the others none" python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    bad = r["file"].endswith("broken.json")
    assert (r["status"] != "OK") == bad and bool(r["error"]) == bad, r
    assert bad or float(r["deterministic.throughput"]) > 0, r' j1.csv
check "batch: -o writes nothing on standard output" test ! -s j1.out -a -s j1.csv

"$bin" batch in/b in/two.json --format jsonl --jobs 2 -q > rows.jsonl
"$bin" eval --json in/b/*.json in/two.json > eval.jsonl
check "batch rows agree with eval --json" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ev = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(ev) == 13, (len(rows), len(ev))
for r, e in zip(rows, ev):
    assert r["file"] == e["file"] and r["replication"] == e["replication"], (r, e)
    d, x, b = e["deterministic"], e["exponential"], e["bounds"]
    assert r["deterministic"] == d and r["exponential"] == x and r["bounds"] == b
    assert "components" not in r and "det_throughput" not in r  # no aliases since 0.2
' rows.jsonl eval.jsonl
"$bin" batch in/b in/two.json --jobs 2 -q > rows.csv
check "batch: CSV and JSON lines hold the same values" python3 -c '
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(js)
def at(j, path):  # a CSV column is a JSON path, its keys joined by "."
    for k in path.split("."):
        j = j.get(k) if isinstance(j, dict) else None
    return j
for c, j in zip(rows, js):
    assert "deterministic.throughput" in c and "det_throughput" not in c  # paths only
    for k in c:
        v = at(j, k)
        if k == "seconds":
            continue
        if isinstance(v, list):
            want = " ".join(map(str, v))
        elif v is None:
            want = ""
        elif isinstance(v, float):
            assert float(c[k]) == v, (k, c[k], v)
            continue
        else:
            want = str(v)
        assert c[k] == want, (k, c[k], want)
' rows.csv rows.jsonl
"$bin" eval --format csv in/b/*.json in/two.json > eval.csv
check "batch: eval --format csv has the same columns and values" python3 -c '
import csv, sys
strip = lambda rows: [{k: v for k, v in r.items() if k not in ("seconds",)} for r in rows]
b, e = list(csv.DictReader(open(sys.argv[1]))), list(csv.DictReader(open(sys.argv[2])))
assert list(b[0]) == list(e[0]) and strip(b) == strip(e)' rows.csv eval.csv

# ---- batch --law: the exact value under a phase-type law, per row ----------------
"$bin" batch in/b in/a/s-00001.json --law erlang:k=2 --format jsonl --jobs 2 -q > law.jsonl
"$bin" eval --json --law erlang:k=2 in/b/*.json in/a/s-00001.json > law-eval.jsonl
check "batch --law: exact_law as eval --law gives it" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ev = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(ev) == 13, (len(rows), len(ev))
for r, e in zip(rows, ev):
    x = r["exact_law"]
    assert x == e["exact_law"] and x["law"] == "erlang:k=2", (x, e["exact_law"])
    # Erlang-2 times are N.B.U.E.: the value lies within the bounds (1e-12 relative)
    lo, hi = r["bounds"]["lower"], r["bounds"]["upper"]
    assert lo * (1 - 1e-12) <= x["throughput"] <= hi * (1 + 1e-12), (lo, x, hi)' law.jsonl law-eval.jsonl
"$bin" batch in/b in/a/s-00001.json --law erlang:k=1 --jobs 2 -q > law1.csv
check "batch --law erlang:k=1: exact_law columns equal the exponential ones" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 13
for r in rows:
    assert r["exact_law.law"] == "erlang:k=1" and r["exact_law.reason"] == "", r
    t, x = float(r["exact_law.throughput"]), float(r["exponential.throughput"])
    assert abs(t - x) <= 1e-12 * x, (r["file"], t, x)
    assert abs(float(r["exact_law.period"]) * t - 1) <= 1e-12' law1.csv
"$bin" batch in/a/s-00001.json --law erlang:k=3 --max-states 100 -q > law-cut.csv
check "batch --law: a chain over --max-states leaves exact_law.reason, the row stays OK" python3 -c '
import csv, sys
(r,) = list(csv.DictReader(open(sys.argv[1])))
assert r["status"] == "OK" and r["exact_law.throughput"] == "", r
assert "needs more than 100 states" in r["exact_law.reason"], r["exact_law.reason"]' law-cut.csv
"$bin" batch in/b --law uniform:cv=1 -q > /dev/null 2> law-bad.err
check "batch --law with a bad spec: exit 2, says why" \
  bash -c "test $? -eq 2 && grep -q 'streamtp: error: --law' law-bad.err"

# ---- Ctrl-C -------------------------------------------------------------------
# 600 Strict mappings with 2520 paths each take seconds; the interrupt comes
# as soon as the first rows are out.
"$bin" generate --teams 7,8,9,5 --model strict --count 600 -o slow
"$bin" batch slow --jobs 1 --exp-method none -o slow.csv 2> slow.err &
pid=$!
for _ in $(seq 1 600); do
  [ "$(wc -l < slow.csv 2>/dev/null || echo 0)" -ge 3 ] && break
  sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit status 130" test $rc -eq 130
check "SIGINT: a summary on standard error" grep -q "streamtp: interrupted: .* files done" slow.err
check "SIGINT: the rows written are complete, in order, and fewer than the inputs" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
idx = [int(r["file"][-10:-5]) for r in rows]
assert 2 <= len(idx) < 600, len(idx)
assert idx == list(range(1, len(idx) + 1)), idx[:5]  # every input started, in order
done = [r for r in rows if r["status"] == "OK"]
cut = [r for r in rows if r["status"] != "OK"]
assert all(float(r["deterministic.throughput"]) > 0 for r in done)
# with one job, at most the input running at the interrupt is cut, marked
assert len(cut) <= 1 and all(r["status"] == "EINTERRUPTED" for r in cut), cut' slow.csv

# ---- progress on a terminal -------------------------------------------------------
# script(1) gives the command a pseudo-terminal for standard error.
script -qec "$bin batch in/b --jobs 1 -o tty.csv" tty.log > /dev/null 2>&1
check "a terminal shows a progress bar with rate and ETA" \
  grep -q "files/s  ETA" tty.log
check "off a terminal, no progress bar" bash -c '! grep -q "ETA" j2.err'

echo "$((total - fail))/$total batch checks passed"
[ $fail -eq 0 ]
