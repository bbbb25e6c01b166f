#!/usr/bin/env bash
# setup.sh: quick start, step 1: install what is missing, build streamtp
# (build/streamtp), and evaluate the bundled example of the paper.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh core
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
./build/streamtp eval examples/example-a.json --model both
