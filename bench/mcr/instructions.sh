#!/bin/sh
# instructions.sh: instruction counts of the solve alone (callgrind), for
# comparisons that the load of a shared machine does not disturb.
#   streamtp builds: the instructions inside stp__mcr_howard, one solve;
#   Boost: Ir(2 solves) - Ir(1 solve) (its solver is inlined into main).
# Usage: bench/mcr/instructions.sh [--old OLD_MCR_STP] GRAPH_NAME...
#   (graph names as in bench/out/mcr, e.g. strict-1e4; run bench/mcr/run.py once first)
# Prints a Markdown row per graph: old, this, Boost, Boost / this.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../out
old=
if [ "${1:-}" = --old ]; then old=$2; shift 2; fi
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*Collected : //p'; }
for f in "$@"; do
  g=$out/mcr/$f.txt
  o=-
  [ -n "$old" ] && o=$(ir --toggle-collect=stp__mcr_howard "$old" "$g" 1)
  a=$(ir --toggle-collect=stp__mcr_howard "$out/build-mcr/mcr_stp" "$g" 1)
  b=$(( $(ir "$out/build-mcr/mcr_boost" "$g" 2) - $(ir "$out/build-mcr/mcr_boost" "$g" 1) ))
  echo "| $f | $o | $a | $b | $(echo "scale=2; $b / $a" | bc) |"
done
