#!/usr/bin/env bash
# campaign.sh: batch as a campaign of jobs (docs/cluster.md), end to end:
#   N shards merged give the rows of one run (N = 1, 3, 7; CSV and JSON
#     lines), the seconds aside, and the same exit status;
#   the shard defaults to a Slurm array task's (SLURM_ARRAY_TASK_*), and the
#     example scripts of examples/slurm/, run as Slurm would run them (their
#     body, with the variables Slurm sets), make the campaign end to end;
#   a run killed halfway (SIGKILL, SIGINT) or cut inside a row, then resumed,
#     gives the rows of one run;
#   a merge names lost, duplicated and foreign rows and writes nothing;
#   --resume refuses another shard's output; bad --shard values are refused;
#   --resume refuses, untouched, whatever is not rows of this batch (notes, a
#     JSON document, a 1 GiB blob, /dev/zero, a FIFO, a directory, a line
#     appended by hand) and cuts off, saying so, only a row's start;
#   one writer per output: two writers at once and a kill -9 loop of two
#     writers give the rows of one run; a merge of a part being written is
#     refused; a merge written whole leaves the old file on a failed write;
#   a build without MPI refuses to run a batch under mpirun;
#   rows with --sensitivity/--utilization/--latency are eval --json's, their
#     CSV summary columns those of the JSON; --simulate rows are simulate
#     --json's with the same seed, the same on any number of workers, shards
#     and resumes; a resume or merge with other options is refused.
# Usage: campaign.sh PATH/TO/streamtp [1: built with MPI]
set -uo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
slurm="$here/../../examples/slurm"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0

check() { # check DESCRIPTION COMMAND...: run, report ok or FAIL
  local what=$1
  shift
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what"
    fail=$((fail + 1))
  fi
}

# The rows of a CSV or JSON-lines file without the wall times.
rows() {
  python3 - "$1" <<'EOF'
import csv, json, sys
path = sys.argv[1]
text = open(path).read()
if text.startswith("{"):
    for line in text.splitlines():
        r = json.loads(line)
        r.pop("seconds")
        print(json.dumps(r, sort_keys=True))
else:
    rows = list(csv.reader(open(path)))
    col = rows[0].index("seconds")
    for r in rows:
        print(r[:col] + r[col + 1:])
EOF
}

same_rows() { diff <(rows "$1") <(rows "$2") > /dev/null; }

# ---- inputs: 30 mappings of both models and one broken file ---------------------
"$bin" generate --stages 4 --processors 9 --count 25 --seed 11 -o in > /dev/null
"$bin" generate --teams 2,3,2 --model strict --count 5 --seed 12 --prefix s -o in > /dev/null
printf '{"stages": 1}' > in/broken.json
"$bin" batch in --model both -q -o one.csv
one_rc=$?
"$bin" batch in --model both -q --format jsonl -o one.jsonl
check "one run: 31 inputs, 62 rows, exit status 2 (the broken file)" \
  test "$one_rc" = 2 -a "$(wc -l < one.csv)" = 63 -a "$(wc -l < one.jsonl)" = 62

# ---- shards + merge == one run ------------------------------------------------------
for n in 1 3 7; do
  mkdir -p "p$n"
  for ((i = 0; i < n; i++)); do
    "$bin" batch in --model both -q --shard "$i/$n" -o "p$n/part-$i.csv"
  done
  "$bin" batch in --model both -q --merge "p$n" -o "merged-$n.csv"
  rc=$?
  check "$n shards merged: the rows of one run, exit status 2 as one run" \
    bash -c "$(declare -f rows same_rows); [ $rc = 2 ] && same_rows one.csv merged-$n.csv"
done
check "shard i of 7 holds the inputs k with k mod 7 = i" python3 -c '
import csv, sys
files = sorted({r["file"] for r in csv.DictReader(open("one.csv"))})
for i in range(7):
    got = [r["file"] for r in csv.DictReader(open(f"p7/part-{i}.csv"))]
    assert got[::2] == files[i::7] and got[1::2] == files[i::7], (i, got)'
mkdir -p j3
for i in 0 1 2; do "$bin" batch in --model both -q --format jsonl --shard "$i/3" -o "j3/$i.jsonl"; done
"$bin" batch in --model both -q --merge j3 -o merged-j3.jsonl
check "3 shards of JSON lines merged: the rows of one run" same_rows one.jsonl merged-j3.jsonl

# ---- Slurm: the shard from the array's variables; the example scripts ------------
mkdir -p env7
for ((id = 1; id <= 7; id++)); do # an array 1-7: shard id - 1 of 7
  SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 SLURM_ARRAY_TASK_COUNT=7 \
    "$bin" batch in --model both -o "env7/part-$id.csv" 2> "env7.err.$id"
done
check "SLURM_ARRAY_TASK_ID 1..7 of an array 1-7: the shards 0/7 .. 6/7" \
  bash -c 'for i in 0 1 2 3 4 5 6; do cmp -s <(cut -d, -f1-3 p7/part-$i.csv) <(cut -d, -f1-3 env7/part-$((i + 1)).csv) || exit 1; done'
check "the shard taken from Slurm is said on standard error" \
  grep -q "shard 2/7 (SLURM_ARRAY_TASK_ID=3 of 1-7): 5 of 31 inputs" env7.err.3
SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=9 SLURM_ARRAY_TASK_COUNT=3 \
  "$bin" batch in -q -o /dev/null 2> list.err
check "an array that is not a range (--array=0,4,9) asks for --shard" \
  bash -c "[ $? = 2 ] && grep -q 'give --shard I/N' list.err"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 SLURM_ARRAY_TASK_COUNT=junk \
  "$bin" batch in -q -o /dev/null 2> junk.err
check "SLURM_ARRAY_TASK_COUNT=junk is refused as a garbage task id is" \
  bash -c "[ $? = 2 ] && grep -q 'cannot read the shard from SLURM_ARRAY_TASK_ID, _MIN, _MAX, _STEP and _COUNT; give --shard I/N' junk.err"
SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=6 SLURM_ARRAY_TASK_COUNT=7 \
  "$bin" batch in --model both -q --merge p7 -o merged-env.csv
check "a merge inside an array task still merges every shard" same_rows one.csv merged-env.csv

# The body of examples/slurm/*.sbatch as Slurm runs it: shard.sbatch once per
# array task with the variables sbatch --array=0-4 sets, then merge.sbatch.
export STREAMTP="$bin" INPUTS=in PARTS=sparts RESULT=slurm.csv MODEL=both
for ((id = 0; id < 5; id++)); do
  SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=5 \
    SLURM_CPUS_PER_TASK=2 SLURM_ARRAY_JOB_ID=1000 SLURM_JOB_ID=$((1001 + id)) \
    bash "$slurm/shard.sbatch" 2> /dev/null
  rc=$?
done
check "examples/slurm/shard.sbatch: every task succeeds and writes its part" \
  test "$rc" = 0 -a "$(ls sparts | wc -l)" = 5
SLURM_JOB_ID=1006 bash "$slurm/merge.sbatch" 2> /dev/null
check "examples/slurm/merge.sbatch: the rows of one run" \
  bash -c "$(declare -f rows same_rows); [ $? = 0 ] && same_rows one.csv slurm.csv"
SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=5 \
  bash "$slurm/shard.sbatch" 2> requeue.err
check "shard.sbatch run again (a requeued task): nothing redone" \
  bash -c "[ $? = 0 ] && grep -q '6 of 6 inputs done, 0 to do' requeue.err"
rm sparts/part-00003.csv
bash "$slurm/merge.sbatch" 2> lost.err
check "merge.sbatch fails when a task's part is missing, and leaves no result" \
  bash -c "[ $? != 0 ] && [ ! -e slurm.csv ] && grep -q 'lost row: in/map-00003.json (overlap)' lost.err"
unset STREAMTP INPUTS PARTS RESULT MODEL

# ---- killed halfway, resumed ---------------------------------------------------------
"$bin" generate --teams 2,3,3 --model strict --count 100 --seed 13 -o slow > /dev/null
"$bin" batch slow --jobs 1 -q -o slow-one.csv
killed_at() { # killed_at SIGNAL OUT: start a batch into OUT, kill it after 30 rows
  "$bin" batch slow --jobs 1 -q -o "$2" 2> /dev/null &
  local pid=$!
  for _ in $(seq 1 400); do
    [ "$(wc -l 2> /dev/null < "$2" || echo 0)" -ge 30 ] && break
    sleep 0.02
  done
  { kill "-$1" $pid && wait $pid; } 2> /dev/null
}
killed_at KILL slow-killed.csv
n_killed=$(($(wc -l < slow-killed.csv) - 1))
"$bin" batch slow --jobs 1 -q --resume slow-killed.csv
check "SIGKILL after $n_killed of 100 rows, resumed: the rows of one run, in order" \
  bash -c "$(declare -f rows same_rows); [ $n_killed -lt 100 ] && same_rows slow-one.csv slow-killed.csv"
killed_at INT slow-int.csv
"$bin" batch slow --jobs 1 -q --resume slow-int.csv 2> /dev/null
"$bin" batch slow -q --merge slow-int.csv -o slow-int-merged.csv
check "SIGINT halfway, resumed, merged: the rows of one run" same_rows slow-one.csv slow-int-merged.csv
head -c 2500 slow-one.csv > slow-cut.csv # cut inside a row
"$bin" batch slow --jobs 2 --resume slow-cut.csv 2> cut.err
check "a last row cut short is dropped and done again" \
  bash -c "$(declare -f rows same_rows); same_rows slow-one.csv slow-cut.csv && grep -q 'slow-cut.csv: its last row was incomplete ([0-9]* bytes without a line break: a run killed while writing it): cut off' cut.err"
"$bin" batch in --model both -q --format jsonl --resume one.jsonl 2> /dev/null
check "--resume of a finished run: nothing appended, its exit status" \
  bash -c "[ $? = 2 ] && [ $(wc -l < one.jsonl) = 62 ]"
head -c 3000 one.jsonl > part.jsonl
"$bin" batch in --model both -q --resume part.jsonl 2> /dev/null
check "--resume of JSON lines (guessed from the file) appends JSON lines" same_rows one.jsonl part.jsonl
: > empty.csv # an empty file: nothing done yet (its reading had passed NULL to memcmp, fuzz_rowfile)
"$bin" batch in --model both -q --resume empty.csv 2> /dev/null
check "--resume of an empty file writes the rows of one run" same_rows one.csv empty.csv

# ---- --resume takes only a row file of this batch, and leaves anything else as it was --
untouched_refusal() { # untouched_refusal DESCRIPTION FILE MESSAGE [--merge]: exit 2, FILE unchanged
  local what=$1 f=$2 msg=$3 opt=${4:---resume}
  local before after rc
  before=$(cksum < "$f")
  timeout 20 "$bin" batch in --model both -q "$opt" "$f" -o /dev/null 2> refusal.err < /dev/null
  rc=$?
  [ "$opt" = --resume ] && { timeout 20 "$bin" batch in --model both -q --resume "$f" 2> refusal.err < /dev/null; rc=$?; }
  after=$(cksum < "$f")
  check "$what: exit 2, untouched, said" \
    bash -c "[ $rc = 2 ] && [ '$before' = '$after' ] && grep -q -- '$msg' refusal.err"
}
printf 'my notes about this campaign' > notes.txt
untouched_refusal "--resume of a one-line note without a line break" notes.txt \
  "notes.txt: not rows of \`streamtp batch\`: no line break in its 28 bytes"
python3 -c 'import json; json.dump({"file": "in/map-00001.json", "status": "OK"}, open("doc.json", "w"))'
untouched_refusal "--resume of a json.dump()ed document" doc.json "doc.json: not rows of"
printf 'notes\nmore notes\n' > notes2.txt
untouched_refusal "--resume of notes with line breaks" notes2.txt \
  "notes2.txt:1: not rows of \`streamtp batch\`: the CSV header has no file, model and status columns"
truncate -s 1G blob.bin
untouched_refusal "--resume of a 1 GiB blob (NUL bytes, no line break)" blob.bin \
  "blob.bin:1: a record of more than 16 MiB: not rows of"
rm -f blob.bin
cp one.csv tailed.csv && printf 'a note appended by hand' >> tailed.csv
untouched_refusal "--resume of rows ending in a line that is not a row's start" tailed.csv \
  "is not the start of a row of this batch: not cut off"
cp one.jsonl tailed.jsonl && printf '{"note": "by hand"}' >> tailed.jsonl
untouched_refusal "--resume of JSON lines ending in another object" tailed.jsonl \
  "is not the start of a row of this batch"
printf 'file,name,model\x00\n' > nul.csv
untouched_refusal "--resume of a file with a NUL byte" nul.csv "nul.csv:1: a NUL byte: not rows of"
mkdir -p adir
check "--resume of a directory is refused" \
  bash -c "'$bin' batch in -q --resume adir 2> dir.err; [ \$? = 2 ] && grep -q 'adir: not a regular file (a directory)' dir.err"
for opt in --resume --merge; do
  timeout 20 "$bin" batch in --model both -q $opt /dev/zero -o /dev/null 2> zero.err; rc=$?
  [ $opt = --resume ] && { timeout 20 "$bin" batch in --model both -q --resume /dev/zero 2> zero.err; rc=$?; }
  check "$opt /dev/zero: refused at once, nothing read or appended" \
    bash -c "[ $rc = 2 ] && grep -q '/dev/zero: not a regular file (a device)' zero.err"
  mkfifo fifo
  timeout 20 "$bin" batch in --model both -q $opt fifo -o /dev/null 2> fifo.err; rc=$?
  [ $opt = --resume ] && { timeout 20 "$bin" batch in --model both -q --resume fifo 2> fifo.err; rc=$?; }
  check "$opt FIFO: refused at once, no wait for a writer" \
    bash -c "[ $rc = 2 ] && grep -q 'fifo: not a regular file (a FIFO)' fifo.err"
  rm -f fifo
done
head -c 100 one.csv > header-cut.csv # a run killed inside its header
"$bin" batch in --model both -q --resume header-cut.csv 2> header-cut.err
check "a header cut short is cut off (said under --quiet) and the run done whole" \
  bash -c "$(declare -f rows same_rows); same_rows one.csv header-cut.csv && grep -q 'header-cut.csv: its last row was incomplete (100 bytes' header-cut.err"
head -c 2500 one.jsonl > cut.jsonl
"$bin" batch in --model both -q --resume cut.jsonl 2> cut-jsonl.err
check "JSON lines cut inside a row: cut off under --quiet, said, resumed" \
  bash -c "$(declare -f rows same_rows); same_rows one.jsonl cut.jsonl && grep -q 'cut.jsonl: its last row was incomplete' cut-jsonl.err"

# ---- one writer per output: a lock on OUT -------------------------------------------
# Two resumes of one OUT at once (a requeued task overlapping its
# predecessor): the second waits, saying for whom, then finds all done.
rm -f two.csv
"$bin" batch slow --jobs 1 -q --resume two.csv 2> two-a.err & pa=$!
for _ in $(seq 1 400); do [ "$(wc -l 2> /dev/null < two.csv || echo 0)" -ge 5 ] && break; sleep 0.01; done
"$bin" batch slow --jobs 1 --resume two.csv 2> two-b.err & pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
check "two --resume of one OUT at once: the rows of one run, none twice" \
  bash -c "$(declare -f rows same_rows); [ $ra = 0 ] && [ $rb = 0 ] && same_rows slow-one.csv two.csv"
check "the second writer waits, naming the holder" \
  bash -c "grep -q 'two.csv is being written by pid $pa on .* since .*: waiting for it to end' two-b.err && grep -q '100 of 100 inputs done, 0 to do' two-b.err"
check "the lock file is gone once the writers end" test ! -e .two.csv.lock
# A kill -9 loop: two writers at a time on one OUT, both killed after a
# random number of rows (the holder or the waiter first), until OUT is whole;
# then one more resume and the merge: the rows of one run, none lost or twice.
rm -f loop.csv
kills=0
for round in $(seq 1 30); do
  [ "$(wc -l 2> /dev/null < loop.csv || echo 0)" -ge 101 ] && break
  "$bin" batch slow --jobs 1 -q --resume loop.csv 2> /dev/null & p1=$!
  "$bin" batch slow --jobs 2 -q --resume loop.csv 2> /dev/null & p2=$!
  target=$(($(wc -l 2> /dev/null < loop.csv || echo 0) + 3 + RANDOM % 12)) # kill after a few rows
  for _ in $(seq 1 500); do
    [ "$(wc -l 2> /dev/null < loop.csv || echo 0)" -ge $target ] && break
    kill -0 $p1 2> /dev/null || kill -0 $p2 2> /dev/null || break # both ended
    sleep 0.01
  done
  first=$p1 second=$p2
  [ $((round % 2)) = 0 ] && first=$p2 second=$p1
  kill -9 $first 2> /dev/null && kills=$((kills + 1))
  sleep "0.0$((RANDOM % 10))" # the waiter may take the lock in between
  kill -9 $second 2> /dev/null && kills=$((kills + 1))
  wait $p1 $p2 2> /dev/null
done
"$bin" batch slow --jobs 2 -q --resume loop.csv
loop_rc=$?
"$bin" batch slow -q --merge loop.csv -o loop-merged.csv
merge_rc=$?
check "a kill -9 loop of two writers ($kills kills in $round rounds): the merge finds no row lost or twice" \
  bash -c "$(declare -f rows same_rows); [ $kills -ge 8 ] && [ $loop_rc = 0 ] && [ $merge_rc = 0 ] && same_rows slow-one.csv loop-merged.csv"
# A merge while a part is being written is refused, naming the writer.
rm -f busy.csv
"$bin" batch slow --jobs 1 -q --resume busy.csv 2> /dev/null & pw=$!
for _ in $(seq 1 400); do [ "$(wc -l 2> /dev/null < busy.csv || echo 0)" -ge 5 ] && break; sleep 0.01; done
"$bin" batch slow -q --merge busy.csv -o busy-merged.csv 2> busy.err
mrc=$?
wait $pw
check "a merge of a part being written: exit 2, the writer named, nothing written" \
  bash -c "[ $mrc = 2 ] && [ ! -e busy-merged.csv ] && grep -q 'busy.csv is being written by pid $pw on' busy.err"
# Two plain runs with -o OUT at once: the second waits, OUT holds one run.
"$bin" batch slow --jobs 1 -q -o plain.csv 2> /dev/null & p1=$!
for _ in $(seq 1 400); do [ "$(wc -l 2> /dev/null < plain.csv || echo 0)" -ge 5 ] && break; sleep 0.01; done
"$bin" batch slow --jobs 1 -o plain.csv 2> plain.err
wait $p1
check "two runs with -o OUT at once: one after the other, OUT whole" \
  bash -c "$(declare -f rows same_rows); same_rows slow-one.csv plain.csv && grep -q 'plain.csv is being written by pid $p1' plain.err"
# -o OUT of a merge is written whole: a failed write leaves the old OUT.
echo "an older merge" > old-merge.csv
check "a merge into /dev/full fails with exit 1" \
  bash -c "'$bin' batch in --model both -q --merge p3 -o /dev/full 2> full.err; [ \$? = 1 ] && grep -q 'No space left on device' full.err"
( ulimit -f 8; trap '' XFSZ; "$bin" batch in --model both -q --merge p3 -o old-merge.csv 2> fsize.err )
check "a merge whose write fails (file size limit) leaves the old OUT and no temporary" \
  bash -c "[ \"\$(cat old-merge.csv)\" = 'an older merge' ] && grep -q 'old-merge.csv: cannot write: File too large' fsize.err && ! ls -a | grep -q '^\.old-merge.csv.stp-'"

# ---- merges that must fail -------------------------------------------------------
mkdir -p bad1 bad2 bad3
cp p3/part-0.csv p3/part-2.csv bad1/
cp p3/part-*.csv bad2/ && cp p3/part-1.csv bad2/part-1-again.csv
cp p3/part-*.csv bad3/ && "$bin" batch in --model overlap -q --shard 0/3 -o bad3/overlap.csv
"$bin" batch in --model both -q --merge bad1 -o m1.csv 2> m1.err
check "merge with a part missing: exit 2, the lost rows named, nothing written" \
  bash -c "[ $? = 2 ] && [ ! -e m1.csv ] && grep -q 'lost row: in/map-00001.json (overlap)' m1.err && grep -q '20 lost' m1.err"
"$bin" batch in --model both -q --merge bad2 -o m2.csv 2> m2.err
check "merge with a part twice: the duplicated rows named" \
  bash -c "[ $? = 2 ] && [ ! -e m2.csv ] && grep -q 'bad2/part-1.csv:2: duplicated row: in/map-00001.json (overlap) is also in bad2/part-1-again.csv' m2.err"
"$bin" batch in --model both -q --merge bad3 -o m3.csv 2> m3.err
check "merge with another batch's part: the duplicated rows named" \
  bash -c "[ $? = 2 ] && grep -q 'duplicated row: in/broken.json (overlap)' m3.err"
"$bin" batch in/map-0000*.json --model both -q --merge p3 -o m4.csv 2> m4.err
check "merge over fewer inputs: the foreign rows named" \
  bash -c "[ $? = 2 ] && grep -q 'p3/part-0.csv:2: foreign row: in/broken.json (overlap)' m4.err"
mkdir -p bad4 && "$bin" batch in/map-0000[1-3].json --model strict -q -o bad4/strict.csv
"$bin" batch in/map-0000[1-3].json --model overlap -q -o bad4/overlap.csv
"$bin" batch in/map-0000[1-3].json -q --merge bad4 -o m6.csv 2> m6.err
check "merge of parts made with different --model: foreign rows, the option suggested" \
  bash -c "[ $? = 2 ] && [ ! -e m6.csv ] && grep -q 'bad4/strict.csv:2: foreign row: in/map-00001.json (strict), where bad4/overlap.csv holds its row (overlap): were the parts made with different --model?' m6.err && grep -q '0 duplicated, 3 foreign' m6.err"
"$bin" batch in/map-00001.json -q -o new/dir/one.csv && "$bin" batch in/map-00001.json -q --resume new/res/one.csv &&
  "$bin" batch in/map-00001.json -q --merge new/dir -o new/merged/one.csv
check "batch -o, --resume and --merge -o make the missing directories of OUT" \
  bash -c "[ -s new/dir/one.csv ] && [ -s new/res/one.csv ] && cmp -s new/dir/one.csv new/merged/one.csv"
touch plainfile && "$bin" batch in/map-00001.json -q -o plainfile/one.csv 2> m7.err
check "batch -o under a file that is not a directory: exit 2, said" \
  bash -c "[ $? = 2 ] && grep -q 'plainfile/one.csv: plainfile: cannot create the directory: Not a directory' m7.err"
"$bin" batch in --model both -q --merge p3 -o p3/part-0.csv 2> m5.err
check "merge refuses to write over one of its parts" \
  bash -c "[ $? = 2 ] && grep -q 'is one of the parts' m5.err && [ -s p3/part-0.csv ]"

# ---- mpirun without MPI in the build ------------------------------------------------
if [ "${2:-0}" != 1 ]; then # the launcher's variables, as mpirun sets them for each rank
  OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=0 "$bin" batch in -q -o /dev/null 2> nompi.err
  check "a build without MPI refuses to run a batch once per rank under mpirun" \
    bash -c "[ $? = 2 ] && grep -q 'built without MPI: under mpirun each of the 4 ranks' nompi.err"
fi

# ---- resume and shard mistakes ------------------------------------------------------
cp p3/part-1.csv other.csv
"$bin" batch in --model both -q --shard 0/3 --resume other.csv 2> r1.err
check "--resume refuses another shard's output" \
  bash -c "[ $? = 2 ] && grep -q 'another shard' r1.err"
"$bin" batch in -q --shard 3/3 2> s1.err
check "--shard 3/3 is refused (I counts from 0)" bash -c "[ $? = 2 ] && grep -q 'below N' s1.err"
"$bin" batch in -q --shard 1-3 2> s2.err
check "--shard 1-3 is refused" bash -c "[ $? = 2 ] && grep -q 'is not I/N' s2.err"
"$bin" batch in -q --resume one.csv -o x.csv 2> s3.err
check "--resume with -o is refused" bash -c "[ $? = 2 ] && grep -q 'drop -o' s3.err"

# ---- what rows add (--sensitivity, --utilization, --latency) and --simulate ----------
# Rows without their wall times (and those of the sensitivities and the runs).
xrows() {
  python3 - "$1" <<'EOF2'
import csv, json, sys
TIMES = ("seconds", "cpu_seconds", "bounds_seconds", "firings_per_second", "firings_per_cpu_second")
text = open(sys.argv[1]).read()
if text.startswith("{"):
    for line in text.splitlines():
        r = {k: v for k, v in json.loads(line).items() if k not in TIMES + ("components",)}
        r.get("sensitivity_solve", {}).pop("seconds", None)
        print(json.dumps(r, sort_keys=True))
else:
    rows = list(csv.reader(open(sys.argv[1])))
    col = rows[0].index("seconds")
    for r in rows:
        print(r[:col] + r[col + 1:])
EOF2
}
same_xrows() { diff <(xrows "$1") <(xrows "$2") > /dev/null; }
mkdir -p ex
cp in/map-0000[1-6].json in/s-00001.json in/s-00002.json in/broken.json ex/
X="--sensitivity --utilization --latency --law erlang:k=2"
"$bin" batch ex --model both $X -q --format jsonl -o x.jsonl
"$bin" eval ex/*.json --model both $X --json > x-eval.jsonl 2> /dev/null
check "batch --sensitivity --utilization --latency: each row is eval --json's of its file (components and times aside)" \
  bash -c "$(declare -f xrows same_xrows); same_xrows x.jsonl x-eval.jsonl"
"$bin" batch ex --model both $X -q -o x.csv
check "their CSV: the top-ranked sensitivity, the item of the largest busy time, the saturated count and the latency of the JSON rows" \
  python3 - x.csv x.jsonl <<'EOF2'
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
recs = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == len(recs) == 18, len(rows)
def same(cell, v):
    if v is None:
        return cell == ""
    if isinstance(v, str):
        return cell == v
    return math.isclose(float(cell), v, rel_tol=0, abs_tol=0)
checked = 0
for row, rec in zip(rows, recs):
    assert row["file"] == rec["file"] and row["model"] == rec["model"]
    if rec["status"] != "OK":
        assert row["sensitivity.0.of"] == "" and row["utilization_max.resource"] == ""
        continue
    top = rec["sensitivity"][0]
    # the ranking by exp, recomputed: no item has a larger exp elasticity than the first
    assert all(it["exponential"]["elasticity"] <= top["exponential"]["elasticity"] for it in rec["sensitivity"])
    assert same(row["sensitivity.0.parameter"], top["parameter"]) and same(row["sensitivity.0.of"], top["of"])
    assert same(row["sensitivity.0.deterministic.elasticity"], top["deterministic"]["elasticity"])
    assert same(row["sensitivity.0.deterministic.left"], top["deterministic"]["left"])
    assert same(row["sensitivity.0.exponential.elasticity"], top["exponential"]["elasticity"])
    assert same(row["sensitivity.0.law.elasticity"], top.get("law", {}).get("elasticity"))
    busiest = max(rec["utilization"], key=lambda it: it["busy"])  # the first of the largest
    assert same(row["utilization_max.resource"], busiest["resource"])
    assert same(row["utilization_max.deterministic"], busiest["deterministic"])
    # det, exp and law are each throughput x busy: the busiest is the largest under each
    for k in ("deterministic", "exponential", "law"):
        if k in busiest:
            assert max(it[k] for it in rec["utilization"]) == busiest[k], k
    assert int(row["utilization_saturated"]) == sum(it["saturated"] for it in rec["utilization"])
    assert same(row["latency.deterministic.max"], rec["latency"]["deterministic"]["max"])
    assert same(row["latency.deterministic.mean"], rec["latency"]["deterministic"]["mean"])
    checked += 1
assert checked == 16, checked
EOF2
mkdir -p xp
for i in 0 1 2; do "$bin" batch ex --model both $X -q --shard "$i/3" -o "xp/$i.csv"; done
"$bin" batch ex --model both $X -q --merge xp -o x-merged.csv
check "3 shards of --sensitivity --utilization --latency rows merged: the rows of one run" \
  bash -c "$(declare -f xrows same_xrows); same_xrows x.csv x-merged.csv"
"$bin" batch ex --model both -q --format jsonl -o plain.jsonl
"$bin" batch ex --model both --latency -q --resume plain.jsonl 2> xr.err
check "--resume --latency of rows made without it: refused, the option named" \
  bash -c "[ $? = 2 ] && grep -q 'made with other options (latency absent, this batch.s present)' xr.err"
"$bin" batch ex --model both -q -o plain.csv
"$bin" batch ex --model both --latency -q --resume plain.csv 2> xr2.err
check "--resume --latency of CSV rows made without it: refused (another header)" \
  bash -c "[ $? = 2 ] && grep -q 'CSV header is not the one' xr2.err"

S="--simulate -n 4000 --seed 7 --utilization --latency"
"$bin" batch ex --model both $S -q --jobs 1 --format jsonl -o sim1.jsonl
"$bin" batch ex --model both $S -q --jobs 2 --format jsonl -o sim2.jsonl
check "batch --simulate: the same rows on 1 and 2 workers" cmp -s <(xrows sim1.jsonl) <(xrows sim2.jsonl)
for f in ex/*.json; do
  for m in overlap strict; do
    "$bin" simulate "$f" --model $m -n 4000 --seed 7 --utilization --latency --json 2> /dev/null ||
      true
  done
done > sim-each.jsonl
check "batch --simulate: each row is simulate --json's of its file, same seed (times aside)" \
  python3 - sim1.jsonl sim-each.jsonl <<'EOF2'
import json, sys
T = ("seconds", "cpu_seconds", "bounds_seconds", "firings_per_second", "firings_per_cpu_second")
a = [json.loads(l) for l in open(sys.argv[1])]
b = [r for r in map(json.loads, open(sys.argv[2])) if r["status"] == "OK"]
ok = [r for r in a if r["status"] == "OK"]
assert len(ok) == 16 and len(b) == 16, (len(ok), len(b))
for x, y in zip(ok, b):
    assert {k: v for k, v in x.items() if k not in T} == {k: v for k, v in y.items() if k not in T}, x["file"]
    assert x["simulation"]["seed"] == 7 and "utilization" in x and "simulation" in x["latency"]
EOF2
"$bin" batch ex --model both $S -q -o sim.csv
mkdir -p sp
for i in 0 1 2 3; do "$bin" batch ex --model both $S -q --shard "$i/4" -o "sp/$i.csv"; done
"$bin" batch ex --model both $S -q --merge sp -o sim-merged.csv
check "4 shards of --simulate merged: the rows of one run (same seed, same rows)" \
  bash -c "$(declare -f xrows same_xrows); same_xrows sim.csv sim-merged.csv"
head -n 7 sim1.jsonl > sim-resumed.jsonl
"$bin" batch ex --model both $S -q --resume sim-resumed.jsonl
check "--simulate killed after 7 rows, resumed: the rows of one run" \
  bash -c "$(declare -f xrows same_xrows); same_xrows sim1.jsonl sim-resumed.jsonl"
head -n 5 sim.csv > sim-resumed.csv
"$bin" batch ex --model both $S -q --jobs 2 --resume sim-resumed.csv
check "--simulate CSV resumed on 2 workers: the rows of one run" \
  bash -c "$(declare -f xrows same_xrows); same_xrows sim.csv sim-resumed.csv"
for opt in "--seed 8" "-n 8000" "--replications 4" "--law erlang:k=3"; do
  args="--simulate -n 4000 --seed 7 --utilization --latency $opt"
  cp sim.csv again.csv
  "$bin" batch ex --model both $args -q --resume again.csv 2> again.err
  check "--resume of --simulate rows with $opt instead: refused, untouched" \
    bash -c "[ $? = 2 ] && grep -q 'made with other options' again.err && cmp -s sim.csv again.csv"
done
"$bin" batch ex --model both --simulate -n 4000 --seed 8 --utilization --latency -q --merge sp 2> sm.err
check "--merge of --simulate parts under another seed: foreign rows, nothing written" \
  bash -c "[ $? = 2 ] && grep -q 'foreign row: ex/map-00001.json (overlap) was made with other options (simulation.seed 7, this batch.s 8)' sm.err"
"$bin" batch ex --model both -q --merge sp 2> sm2.err
check "--merge of --simulate parts as eval rows: foreign" \
  bash -c "[ $? = 2 ] && grep -q 'foreign row' sm2.err"

[ $fail -eq 0 ] && echo "all campaign checks passed" || echo "$fail campaign checks FAILED"
exit $((fail > 0))
