#!/usr/bin/env bash
# run.sh: build the SimGrid S4U peer (sg_pipeline.cpp) and compare it with
# `streamtp simulate` on the mappings of this directory (README.md).
# Usage: bench/simgrid/run.sh [compare.py options]   e.g. --datasets 20000
# Needs libsimgrid-dev and libjansson-dev (scripts/deps.sh bench).  Not part
# of ctest: it runs SimGrid for minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
if [ ! -x "$build/streamtp" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi
out="$build/bench-simgrid"
mkdir -p "$out"
g++ -O2 -std=c++17 -Wall -Wextra "$here/sg_pipeline.cpp" -o "$out/sg_pipeline" \
    $(pkg-config --cflags --libs simgrid jansson)
python3 "$here/compare.py" --streamtp "$build/streamtp" --simgrid "$out/sg_pipeline" "$@"
