#!/usr/bin/env bash
# run.sh: the optional features beyond one machine (docs/cluster.md), under
# `mpirun --oversubscribe` on this machine:
#   MPI batch (-DSTP_MPI=ON): `mpirun -n 4 streamtp batch` writes the rows of
#     one run (CSV and JSON lines), in input order, same exit status; an
#     expensive input does not hold up the other ranks (the rank that has it
#     evaluates few inputs, the others the rest); shards and --resume under
#     mpirun merge to the rows of one run;
#   the distributed chain (-DSTP_PETSC=ON): `mpirun -n K streamtp eval|ctmc|
#     graph --distributed` with K = 1, 2, 4 gives the one-machine answer to
#     1e-10 (relative) on Strict chains of 1e4 and 1e5 states and Overlap
#     patterns of 2e4 and 1e5 states, the same states and moves, a scaled
#     residual of at most 1e-12, and PETSc named as the solver; so do the
#     other routes (-stp_dist_method fixed, eps) and a matrix filled in
#     flushes of 1,000 entries; a homogeneous pattern solved as a chain
#     gives Theorem 4's closed form, a chain of one state its rate;
#     a limit hit on some rank stops every rank with one message.
# Skipped (exit 77, with the reason) when the feature is not built.
# Usage: run.sh PATH/TO/streamtp STP_MPI STP_PETSC   (the CMake options: ON/OFF)
set -uo pipefail
bin=$(realpath "$1")
mpi=${2:-OFF} petsc=${3:-OFF}
case $mpi in ON | on | 1 | TRUE | true) mpi=1 ;; *) mpi=0 ;; esac
case $petsc in ON | on | 1 | TRUE | true) petsc=1 ;; *) petsc=0 ;; esac
if [ $mpi = 0 ]; then
  echo "skipped: streamtp was built without MPI (cmake -DSTP_MPI=ON or -DSTP_PETSC=ON, after scripts/deps.sh cluster)"
  exit 77
fi
command -v mpirun > /dev/null || { echo "skipped: no mpirun on the PATH (scripts/deps.sh cluster)"; exit 77; }
# Open MPI refuses root without these; --oversubscribe: more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none # containers without ptrace rights
run() { mpirun --oversubscribe -n "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=$((fail + 1)); fi
}
rows() { # the rows of a CSV or JSON-lines file without the wall times
  python3 - "$1" <<'EOF'
import csv, json, sys
text = open(sys.argv[1]).read()
if text.startswith("{"):
    for line in text.splitlines():
        r = json.loads(line)
        r.pop("seconds")
        print(json.dumps(r, sort_keys=True))
else:
    rows = list(csv.reader(open(sys.argv[1])))
    col = rows[0].index("seconds")
    for r in rows:
        print(r[:col] + r[col + 1:])
EOF
}
same_rows() { diff <(rows "$1") <(rows "$2") > /dev/null; }

# ---- MPI batch ------------------------------------------------------------------
"$bin" generate --stages 4 --processors 9 --count 24 --seed 21 -o in > /dev/null
"$bin" generate --teams 2,3,2 --model strict --count 6 --seed 22 --prefix s -o in > /dev/null
printf '{"stages": 1}' > in/broken.json
"$bin" batch in --model both -q -o one.csv
one_rc=$?
"$bin" batch in --model both -q --format jsonl -o one.jsonl
run 4 "$bin" batch in --model both -q -o mpi.csv 2> mpi.err
rc=$?
check "mpirun -n 4 batch: the rows of one run, in input order, exit status $one_rc" \
  bash -c "[ $rc = $one_rc ] && $(declare -f rows same_rows); same_rows one.csv mpi.csv"
run 3 "$bin" batch in --model both -q --format jsonl -o mpi.jsonl 2> /dev/null
check "mpirun -n 3 batch --format jsonl: the rows of one run" same_rows one.jsonl mpi.jsonl

# One expensive input first (a Strict chain of 178,944 states), 40 cheap ones.
mkdir -p lb
"$bin" generate --teams 3,4,3 --model strict --count 1 --seed 2 --prefix a -o lb > /dev/null
"$bin" generate --stages 3 --processors 6 --count 40 --seed 23 --prefix b -o lb > /dev/null
run 4 "$bin" batch lb -o lb.csv 2> lb.err
check "an expensive input holds up only its rank (inputs per rank: $(grep -o 'ranks 1..3: .*' lb.err))" \
  python3 -c '
import re, sys
counts = list(map(int, re.search(r"ranks 1\.\.3: ([0-9 ]+)", open("lb.err").read()).group(1).split()))
assert sum(counts) == 41 and min(counts) <= 3, counts  # round robin would give it 14'
"$bin" batch lb -q -o lb-one.csv
check "... and the rows are those of one run" same_rows lb-one.csv lb.csv

mkdir -p parts
for i in 0 1 2; do run 3 "$bin" batch in --model both -q --shard "$i/3" -o "parts/$i.csv" 2> /dev/null; done
head -c 2000 one.csv > resumed.csv
run 2 "$bin" batch in --model both -q --resume resumed.csv 2> /dev/null
"$bin" batch in --model both -q --merge parts -o merged.csv
check "shards under mpirun merge to the rows of one run" same_rows one.csv merged.csv
check "--resume under mpirun completes the rows of one run" same_rows one.csv resumed.csv

if [ $petsc = 0 ]; then
  echo "skipped: the distributed chain (streamtp was built without PETSc: cmake -DSTP_PETSC=ON)"
  [ $fail -eq 0 ] && echo "all MPI checks passed" || echo "$fail MPI checks FAILED"
  exit $((fail > 0))
fi

# ---- the distributed chain -------------------------------------------------------
pattern() { # pattern U V FILE [homogeneous]: a U x V transfer column, links of 5 rates
  python3 - "$@" <<'EOF'
import json, sys
u, v, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
homog = len(sys.argv) > 4
procs = [{"name": f"A{i}", "speed": 100.0} for i in range(u)] + \
        [{"name": f"B{j}", "speed": 100.0} for j in range(v)]
links = [] if homog else [{"from": f"A{i}", "to": f"B{j}", "bandwidth": 1 + ((i * 7 + j * 3) % 5) * 0.25}
                          for i in range(u) for j in range(v)]
json.dump({"name": f"pattern-{u}x{v}", "model": "overlap",
           "stages": [{"name": "T1", "work": 1, "output": 10}, {"name": "T2", "work": 1}],
           "processors": procs, "bandwidth": 2.0, "links": links,
           "mapping": [[f"A{i}" for i in range(u)], [f"B{j}" for j in range(v)]]}, open(out, "w"))
EOF
}
"$bin" generate --teams 2,3,3 --model strict --count 1 --seed 2 --prefix s1e4 -o ch > /dev/null
"$bin" generate --teams 3,4,3 --model strict --count 1 --seed 2 --prefix s1e5 -o ch > /dev/null
pattern 7 8 ch/p7x8.json
pattern 8 9 ch/p8x9.json
for f in ch/s1e4-00001.json ch/s1e5-00001.json ch/p7x8.json ch/p8x9.json; do
  "$bin" eval "$f" --json > "$f.one"
  for k in 1 2 4; do
    run $k "$bin" eval "$f" --json --distributed > "$f.$k" 2> "$f.$k.err"
    check "eval --distributed, $k rank(s), $(basename "$f"): the one-machine answer to 1e-10" \
      python3 - "$f.one" "$f.$k" $k <<'EOF'
import json, sys
one, dist, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
a, b = one["exponential"], dist["exponential"]
assert a["states"] == b["states"] >= 10000, (a["states"], b["states"])
assert abs(a["throughput"] - b["throughput"]) <= 1e-10 * a["throughput"], (a, b)
assert b["residual"] <= 1e-12, b
assert "petsc" in b["solver"] and f"{k} rank" in b["solver"], b["solver"]
assert one["deterministic"] == dist["deterministic"]
print(f'     {b["states"]} states, {b["throughput"]!r} vs {a["throughput"]!r}, '
      f'residual {b["residual"]:.1e}, {b["sweeps"]} iterations')
EOF
  done
done

# the other routes of the solve, and the matrix filled by flushes of 1,000
# entries (-stp_dist_fill_chunk; 2^18 by default, more than these chains
# have): the same answer
for opts in "-stp_dist_method fixed" "-stp_dist_method eps" "-stp_dist_fill_chunk 1000"; do
  PETSC_OPTIONS="$opts" run 3 "$bin" eval ch/s1e4-00001.json --json --distributed > o.json 2> /dev/null
  check "eval --distributed, 3 ranks, $opts: the one-machine answer to 1e-10" \
    python3 - ch/s1e4-00001.json.one o.json "$opts" <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1]))["exponential"], json.load(open(sys.argv[2]))["exponential"]
assert abs(a["throughput"] - b["throughput"]) <= 1e-10 * a["throughput"] and b["residual"] <= 1e-12, (a, b)
route = {"-stp_dist_method fixed": "row 0 fixed", "-stp_dist_method eps": "slepc"}.get(sys.argv[3], "null space")
# without SLEPc in the build, eps falls back to the default route
assert route in b["solver"] or (route == "slepc" and "null space" in b["solver"]), b["solver"]
print(f'     {b["solver"]}: {b["sweeps"]} iterations, residual {b["residual"]:.1e}')
EOF
done

pattern 6 7 ch/h6x7.json homogeneous
run 2 "$bin" eval ch/h6x7.json --json --exp-method ctmc --distributed > h.json 2> /dev/null
check "a homogeneous 6 x 7 pattern as a distributed chain: Theorem 4, u v lambda / (u + v - 1)" \
  python3 -c '
import json
e = json.load(open("h.json"))["exponential"]
closed = 6 * 7 * (2.0 / 10) / (6 + 7 - 1)
assert "ctmc" in e["method"] and e["states"] == 7 * 792, e  # S(6, 7) = 7 C(12, 5)
assert abs(e["throughput"] - closed) <= 1e-10 * closed, (e["throughput"], closed)'

pattern 1 1 ch/h1x1.json homogeneous
run 2 "$bin" eval ch/h1x1.json --json --exp-method ctmc --distributed > h1.json 2> /dev/null
check "a chain of one state on 2 ranks: no solve, the link's rate (bandwidth 2 / size 10)" \
  python3 -c '
import json
e = json.load(open("h1.json"))["exponential"]
assert e["states"] == 1 and abs(e["throughput"] - 0.2) <= 1e-15 and "one state" in e["solver"], e'

for args in "ch/s1e5-00001.json" "ch/p8x9.json --component 8"; do
  # shellcheck disable=SC2086
  "$bin" ctmc $args --json > ctmc.one
  # shellcheck disable=SC2086
  run 4 "$bin" ctmc $args --json --distributed > ctmc.dist 2> /dev/null
  check "ctmc $args --distributed on 4 ranks: the same states, moves and rate" python3 -c '
import json
a, b = json.load(open("ctmc.one")), json.load(open("ctmc.dist"))
assert a["states"] == b["states"] and a["moves"] == b["moves"], (a, b)
assert abs(a["rate"] - b["rate"]) <= 1e-10 * a["rate"] and b["residual"] <= 1e-12, (a, b)
assert abs(a["throughput"] - b["throughput"]) <= 1e-10 * a["throughput"]'
done

"$bin" teg ch/s1e4-00001.json --graph-json > g.json
"$bin" graph g.json --json > g.one
run 2 "$bin" graph g.json --json --distributed > g.dist 2> /dev/null
check "graph --distributed on 2 ranks: the one-machine answer" python3 -c '
import json
a, b = json.load(open("g.one"))["exponential"], json.load(open("g.dist"))["exponential"]
assert a["states"] == b["states"] and abs(a["throughput"] - b["throughput"]) <= 1e-10 * a["throughput"], (a, b)'

run 3 "$bin" ctmc ch/s1e5-00001.json --distributed --max-states 5000 > lim.out 2> lim.err
rc=$?
check "a limit stops every rank: exit 2, one message (from rank 0)" \
  bash -c "[ $rc = 2 ] && [ \$(grep -c 'more than 5000 states' lim.err) = 1 ]"
"$bin" ctmc ch/s1e4-00001.json --distributed --mtx q.mtx 2> mtx.err
check "ctmc --distributed refuses the exports (no chain in one process)" \
  bash -c "[ $? = 2 ] && grep -q -- '--mtx does not apply' mtx.err"

[ $fail -eq 0 ] && echo "all cluster checks passed" || echo "$fail cluster checks FAILED"
exit $((fail > 0))
