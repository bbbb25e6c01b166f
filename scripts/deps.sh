#!/usr/bin/env bash
# deps.sh: install the Debian packages streamtp needs, only those missing.
# Usage: scripts/deps.sh [core|bench|fuzz|cluster|all]   (default core: build and test)
# cluster: the optional MPI, PETSc/SLEPc, Slurm and Dask features (docs/cluster.md);
# the default build and its tests never need them.
set -euo pipefail
group=${1:-core}
core=(build-essential cmake pkg-config libgsl-dev libsuitesparse-dev libcriterion-dev libgmp-dev
      libjansson-dev python3 python3-matplotlib python3-numpy python3-scipy python3-pytest
      python3-pip graphviz librsvg2-bin man-db
      locales)
bench=(libboost-graph-dev liblemon-dev libsimgrid-dev python3-scipy libopenblas-dev hyperfine)
fuzz=(clang libclang-rt-dev)   # clang and its libFuzzer runtime (scripts/fuzz.sh)
cluster=(libopenmpi-dev openmpi-bin libpetsc-real-dev libslepc-real-dev slurm-wlm munge
         python3-distributed)
case "$group" in
  core) want=("${core[@]}") ;;
  bench) want=("${bench[@]}") ;;
  fuzz) want=("${core[@]}" "${fuzz[@]}") ;;
  cluster) want=("${core[@]}" "${cluster[@]}") ;;
  all) want=("${core[@]}" "${bench[@]}" "${fuzz[@]}" "${cluster[@]}") ;;
  *) echo "deps.sh: unknown group '$group' (core, bench, fuzz, cluster, all)" >&2; exit 2 ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
