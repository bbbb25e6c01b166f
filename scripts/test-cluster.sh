#!/usr/bin/env bash
# test-cluster.sh: the optional features beyond one machine (docs/cluster.md):
# a Release build with MPI and PETSc (build-cluster/) and its whole test
# suite, whose `cluster` test runs the MPI batch and the distributed chain
# under `mpirun --oversubscribe`.  Needs `scripts/deps.sh cluster`; without
# those packages it says so and exits 0 (the default build needs none of
# them).  Usage: scripts/test-cluster.sh [--require]   (--require: exit 1
# when the packages are missing, for a CI machine that installed them)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpirun > /dev/null || ! pkg-config --exists PETSc; then
  echo "== cluster build skipped: OpenMPI or PETSc is not installed (scripts/deps.sh cluster)"
  [ "${1:-}" = --require ] && exit 1
  exit 0
fi
jobs=$(nproc)
echo "== cluster build (build-cluster: -DSTP_PETSC=ON, MPI and PETSc)"
cmake -S . -B build-cluster -DCMAKE_BUILD_TYPE=Release -DSTP_PETSC=ON > /dev/null
cmake --build build-cluster -j"$jobs"
(cd build-cluster && ctest --output-on-failure -j"$jobs")
echo "== cluster tests passed"
