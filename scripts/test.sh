#!/usr/bin/env bash
# test.sh: quick start, step 2 (and CI): build and run the whole test suite,
# once in a Release build and once under AddressSanitizer + UBSan; and, on a
# machine that ran `scripts/deps.sh cluster` (OpenMPI and PETSc installed), a
# third time in a Release build with the optional MPI and PETSc features
# (build-cluster/, docs/cluster.md), whose `cluster` test runs the MPI batch
# and the distributed chain.  Without those packages the third pass says it
# is skipped and why: the default build needs none of them.
#
# The Release pass runs every test.  The other two leave out what they
# would only repeat, to keep the whole run well under ten minutes: the ASan
# pass skips the NAME_refblas/NAME_openblas variants (the same Python run
# again against another BLAS: the C code they reach is the same as in NAME,
# which the pass runs); the cluster pass runs the tests of the code its
# build compiles differently (cli/, the distributed chain reached through
# the CLI and Python, the installed package) and the `cluster` test.
#
# Every pass always runs, and the last line sums them all up, so that a
# failure of the first pass is not mistaken for the whole result.  Exit 1 if
# any pass failed.
#
# Usage: scripts/test.sh [PASS...]   PASS: release, asan, cluster (default:
# all three; naming `cluster` makes its packages required)
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh core || exit 2
passes=("$@")
[ ${#passes[@]} -gt 0 ] || passes=(release asan cluster?)
jobs=$(nproc)
log=$(mktemp); trap 'rm -f "$log"' EXIT
summary=() failed=0

have_cluster() { command -v mpirun >/dev/null && pkg-config --exists PETSc; }

for pass in "${passes[@]}"; do
  dir=build flags=(-DCMAKE_BUILD_TYPE=Release) select=() subset=""
  case $pass in
    release) ;;
    asan) dir=build-asan flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTP_SANITIZE=ON)
      select=(-E '_(refblas|openblas)$') subset=" (BLAS variants in release only)" ;;
    cluster|cluster\?)
      if ! have_cluster; then
        why="OpenMPI or PETSc is not installed (scripts/deps.sh cluster)"
        if [ "$pass" = cluster ]; then
          summary+=("cluster: FAILED, $why") failed=1
        else
          echo "== cluster build skipped: $why"
          summary+=("cluster: skipped, $why")
        fi
        continue
      fi
      pass=cluster dir=build-cluster flags=(-DCMAKE_BUILD_TYPE=Release -DSTP_PETSC=ON)
      select=(-R '^(cluster|cli|cli_.*|python|install|layers)$')
      subset=" (the tests of what this build changes)" ;;
    *) echo "test.sh: unknown pass '$pass' (release, asan, cluster)" >&2; exit 2 ;;
  esac
  echo "== $pass build ($dir)"
  if ! { cmake -S . -B "$dir" "${flags[@]}" >/dev/null && cmake --build "$dir" -j"$jobs"; }; then
    summary+=("$pass: BUILD FAILED") failed=1
    continue
  fi
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$jobs" "${select[@]}") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # ctest's own count: "100% tests passed, 0 tests failed out of 54"
  count=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
  total=${count##* } bad=${count%% *}
  # A skipped test (exit 77, e.g. `cluster` without MPI) is not a pass: say so.
  skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped)$/\1/p' "$log" | paste -sd, -)
  nskip=$(printf '%s' "$skipped" | tr ',' '\n' | grep -c .)
  if [ "$rc" -eq 0 ]; then
    summary+=("$pass: passed $(( ${total:-0} - nskip ))/${total:-?}${skipped:+, skipped $nskip ($skipped)}$subset")
  else
    names=$(sed -n '/The following tests FAILED/,$ s/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$log" |
            paste -sd, -)
    summary+=("$pass: FAILED ${bad:-?} of ${total:-?}${names:+ ($names)}") failed=1
  fi
done
line=$(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')
if [ "$failed" -eq 0 ]; then
  echo "== all tests passed: $line"
else
  echo "== TESTS FAILED: $line"
fi
exit "$failed"
