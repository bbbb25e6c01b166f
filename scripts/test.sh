#!/usr/bin/env bash
# test.sh: quick start, step 2 (and CI): build and run the whole test suite,
# once in a Release build and once under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh core
jobs=$(nproc)
for variant in release asan; do
  dir=build
  flags=(-DCMAKE_BUILD_TYPE=Release)
  if [ "$variant" = asan ]; then
    dir=build-asan
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTP_SANITIZE=ON)
  fi
  echo "== $variant build ($dir)"
  cmake -S . -B "$dir" "${flags[@]}" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$jobs")
done
echo "== all tests passed"
