#!/usr/bin/env bash
# test.sh: quick start, step 2 (and CI): build and run the whole test suite,
# once in a Release build and once under AddressSanitizer + UBSan.  Both
# passes always run, and the last line sums up both, so that a failure of the
# first pass is not mistaken for the whole result (exit 1 if either failed).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh core || exit 2
jobs=$(nproc)
log=$(mktemp); trap 'rm -f "$log"' EXIT
summary=() failed=0
for variant in release asan; do
  dir=build
  flags=(-DCMAKE_BUILD_TYPE=Release)
  if [ "$variant" = asan ]; then
    dir=build-asan
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTP_SANITIZE=ON)
  fi
  echo "== $variant build ($dir)"
  if ! { cmake -S . -B "$dir" "${flags[@]}" >/dev/null && cmake --build "$dir" -j"$jobs"; }; then
    summary+=("$variant: BUILD FAILED") failed=1
    continue
  fi
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$jobs") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # ctest's own count: "100% tests passed, 0 tests failed out of 54"
  count=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
  total=${count##* } bad=${count%% *}
  if [ "$rc" -eq 0 ]; then
    summary+=("$variant: passed ${total:-?}/${total:-?}")
  else
    names=$(sed -n '/The following tests FAILED/,$ s/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$log" |
            paste -sd, -)
    summary+=("$variant: FAILED ${bad:-?} of ${total:-?}${names:+ ($names)}") failed=1
  fi
done
line=$(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')
if [ "$failed" -eq 0 ]; then
  echo "== all tests passed: $line"
else
  echo "== TESTS FAILED: $line"
fi
exit "$failed"
