#!/usr/bin/env bash
# run.sh: regenerate one experiment of the paper's section 7 with one command:
# instances, streamtp runs, CSV and PNG.  Each experiment is NAME.py in this
# directory (see common.py for the contract).
#
# usage: notebooks-data/run.sh NAME|all [--ci] [--publish] [--out DIR] [--jobs N]
#   NAME       an experiment: table1, fig13, fig15, ... (all: every one)
#   --ci       reduced size, a few seconds each (what the test suite runs)
#   --publish  copy NAME.png and NAME.csv into notebooks-data/figures/
#   --out DIR  where to write (default notebooks-data/out/NAME, out/ci/NAME with --ci)
#   --jobs N   worker threads of streamtp batch (default: all cores)
# The streamtp binary is $STREAMTP, else build/streamtp (built when missing);
# Python is $PYTHON, else Debian's /usr/bin/python3 (with python3-matplotlib).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

usage() {
  sed -n '5,11s/^# \{0,1\}//p' "$0" >&2
  echo "experiments: $(experiments | tr '\n' ' ')" >&2
  exit 2
}
experiments() { (cd "$here" && ls ./*.py | sed 's|^\./||; s|\.py$||' | grep -v '^common$'); }

[ $# -ge 1 ] || usage
name=$1
shift
ci=0 publish=0 out="" jobs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) ci=1 ;;
    --publish) publish=1 ;;
    --out) out=$2; shift ;;
    --jobs) jobs=(--jobs "$2"); shift ;;
    *) usage ;;
  esac
  shift
done
if [ "$name" = all ]; then
  names=$(experiments)
elif [ -f "$here/$name.py" ] && [ "$name" != common ]; then
  names=$name
else
  echo "run.sh: unknown experiment '$name'" >&2
  usage
fi
if [ $publish -eq 1 ] && [ $ci -eq 1 ]; then
  echo "run.sh: --publish keeps full-size results only; drop --ci" >&2
  exit 2
fi

bin=${STREAMTP:-$root/build/streamtp}
if [ ! -x "$bin" ]; then
  echo "run.sh: building $bin" >&2
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$root/build" -j2 --target streamtp > /dev/null
fi

python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
if ! "$python" -c "import matplotlib" 2> /dev/null; then
  echo "run.sh: $python has no matplotlib: install python3-matplotlib or set PYTHON" >&2
  exit 2
fi

for n in $names; do
  dir=$here/out/$n
  [ $ci -eq 1 ] && dir=$here/out/ci/$n
  [ -n "$out" ] && dir=$out
  [ -n "$out" ] && [ "$name" = all ] && dir=$out/$n
  mkdir -p "$dir"
  export MPLCONFIGDIR=${MPLCONFIGDIR:-$dir/.matplotlib}
  echo "== $n -> $dir" >&2
  start=$(date +%s)
  flags=("${jobs[@]}")
  [ $ci -eq 1 ] && flags+=(--ci)
  "$python" "$here/$n.py" --streamtp "$bin" --out "$dir" "${flags[@]}"
  echo "== $n: $(($(date +%s) - start)) s" >&2
  if [ $publish -eq 1 ]; then
    cp "$dir/$n.png" "$dir/$n.csv" "$here/figures/"
  fi
done
