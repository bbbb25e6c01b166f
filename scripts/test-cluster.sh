#!/usr/bin/env bash
# test-cluster.sh: only the third pass of scripts/test.sh: a Release build
# with the optional MPI and PETSc features (build-cluster/, docs/cluster.md)
# and its whole test suite, whose `cluster` test runs the MPI batch and the
# distributed chain under `mpirun --oversubscribe`.  Needs `scripts/deps.sh
# cluster`; without those packages it says so and exits 0 (the default build
# needs none of them).  Usage: scripts/test-cluster.sh [--require]
# (--require: fail when the packages are missing, for a CI machine that
# installed them)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --require ]; then
  exec scripts/test.sh cluster
fi
exec scripts/test.sh 'cluster?'
