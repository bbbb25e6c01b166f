#!/bin/bash
# campaign.sh: run a streamtp campaign on a Slurm cluster: a job array of
# TASKS shards (shard.sbatch), then the merge (merge.sbatch) once every
# shard has succeeded.  The inputs and the options must be the same for
# every job: pass them here, the jobs get them from the environment.
#   examples/slurm/campaign.sh [-n TASKS] [-m MODEL] [-p PARTS] [-o RESULT] INPUT...
# e.g. streamtp generate --stages 10 --processors 20 --count 5000 -o maps
#      examples/slurm/campaign.sh -n 50 maps
# Sites cap job arrays (MaxArraySize, often 1001 to 5001 tasks): use fewer
# tasks than inputs; each task takes inputs k with k mod TASKS = its index.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
TASKS=10 MODEL=both PARTS=parts RESULT=rows.csv
while getopts n:m:p:o: opt; do
  case $opt in
    n) TASKS=$OPTARG ;;
    m) MODEL=$OPTARG ;;
    p) PARTS=$OPTARG ;;
    o) RESULT=$OPTARG ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
export STREAMTP=${STREAMTP:-$(command -v streamtp)} INPUTS="$*" PARTS MODEL RESULT
array=$(sbatch --parsable --export=ALL --array=0-$((TASKS - 1)) "$here/shard.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency=afterok:"${array%%;*}" "$here/merge.sbatch")
echo "shards: job array $array ($TASKS tasks, parts in $PARTS/); merge: job $merge -> $RESULT"
