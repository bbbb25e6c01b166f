#!/usr/bin/env bash
# fuzz.sh: build the libFuzzer targets of fuzz/ with clang under ASan + UBSan
# (build dir build-fuzz), replay the regression inputs of fuzz/regressions/,
# then fuzz each target for SECONDS (default 60) from a seed corpus made of
# the repository's own inputs (tests/cli, examples).  Crashes, leaks, failed
# result checks (fuzz/fuzz_check.h) and hangs (over FUZZ_TIMEOUT seconds of
# wall time, default 30: fuzz_shapes builds graphs of 10^6 transitions, 2 s
# of CPU under the sanitizers, and a loaded machine stretches that) land in
# build-fuzz/artifacts/TARGET/; the script fails if any did.  Each crash or hang found gets a copy under fuzz/regressions/TARGET/
# and a test (tests/cli/cases or a Criterion case) once fixed.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}; shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_mapping fuzz_law fuzz_samples fuzz_graph fuzz_bcast fuzz_latency
                                     fuzz_shapes fuzz_params fuzz_rowfile fuzz_fit fuzz_svg)
scripts/deps.sh fuzz
CC=clang cmake -S . -B build-fuzz -DSTP_FUZZ=ON -DSTP_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j2 --target "${targets[@]}" >/dev/null

seed_corpus() { # TARGET DIR
  mkdir -p "$2"
  case "$1" in
    fuzz_mapping) cp tests/cli/inputs/*.json examples/*.json tests/cli/data/batch/*.json "$2"/ 2>/dev/null || true ;;
    fuzz_law) i=0
      for s in det exp uniform:spread=0.5 gamma:cv=0.5 weibull:cv=2 lognormal:cv=0.3 \
               normal:cv=0.2 beta:a=2,b=3 erlang:k=4 hyperexp:cv=2 gamma:cv=1e-300; do
        printf '%s' "$s" > "$2/seed$((i++))"; done ;;
    fuzz_samples) printf '1\n2\n3.5\n' > "$2/a"; printf '# times\n0.1 0.2\n1e3\n' > "$2/b"
      cp examples/measured-times.txt "$2/" 2>/dev/null || true ;;
    fuzz_graph) cp examples/graphs/*.json tests/cli/inputs/graphs/*.json "$2"/ ;;
    fuzz_bcast) cp examples/bcast/*.json tests/cli/inputs/bcast/*.json "$2"/ ;;
    fuzz_latency) cp examples/bcast/*.csv tests/cli/inputs/bcast/*.csv "$2"/
      printf '0,1\n1,0\n' > "$2/two"; printf '0 , 2.5e0\r\n2.5,0\r\n' > "$2/crlf" ;;
    fuzz_rowfile) # the first byte: format (0 guess, 1 CSV, 2 JSON lines) + 4 when the header is known
      h='file,name,model,status,error'
      printf '\x04%s\n"a.json",a,overlap,OK,\n"b,c.json",,strict,EINVAL,"bad\nline"\n' "$h" > "$2/csv"
      printf '\x05%s\nx.json,x,overlap,OK,\nx.json,x,stri' "$h" > "$2/csv-cut"
      printf '\x04file,name,mo' > "$2/header-cut"
      printf '\x02{"file":"a.json","model":"overlap","status":"OK"}\n{"file":"b.json","model":null,"status":"EINTERRUPTED"}\n{"file":"c' > "$2/jsonl"
      printf '\x00notes without a line break' > "$2/notes"
      cp tests/cli/data/batch/notes.txt "$2/" 2>/dev/null || true ;;
    fuzz_fit) # the first byte: 0 empirical:, else ph:fit=
      printf '\x01%s\n' 1 2 3.5 0.25 7 > "$2/a"; printf '\x01# times\n0.1 0.2,1e3\n5e-1\n' > "$2/b"
      printf '\x00%s\n' 1 1 1 1.000001 > "$2/c"; printf '\x011e-6\n1e6\n' > "$2/two-points"
      if [ -f examples/measured-times.txt ]; then { printf '\x01'; cat examples/measured-times.txt; } > "$2/measured"; fi ;;
    fuzz_svg) # 64 bytes of parameters (the first: 0 text, 1 Gantt of a graph, 5 of a mapping,
      # 2 sweep, 3 bars), then names
      for k in 0 1 2 3 5; do
        { printf "\\x0$k\\x03\\x01\\x02\\x00\\x01\\x01\\x00\\x02\\x03\\x01\\x00\\x02\\x01\\x01"; head -c 49 /dev/zero
          printf 'g\0P1 & <P2>\0T"2"\0caf\xc3\xa9\0\xef\xbf\xbe\0ctl\x01\0bad\xff\0x\0y'; } > "$2/seed$k"; done ;;
    fuzz_shapes|fuzz_params) # parameters as bytes (fuzz/fuzz_bytes.h): one seed per family
      for k in 0 1 2 3; do printf "\\x0$k\\x00\\x01\\x02\\x00\\x00\\x00\\x01\\x00" > "$2/seed$k"; done ;;
  esac
}

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for t in "${targets[@]}"; do
  bin=build-fuzz/fuzz/$t
  if [ -d "fuzz/regressions/$t" ] && ls "fuzz/regressions/$t"/* >/dev/null 2>&1; then
    echo "== $t: replaying fuzz/regressions/$t"
    "$bin" -timeout="${FUZZ_TIMEOUT:-30}" "fuzz/regressions/$t"/* >/dev/null 2>&1 || { echo "   REGRESSION FAILS"; status=1; }
  fi
  corpus=build-fuzz/corpus/$t art=build-fuzz/artifacts/$t/
  seed_corpus "$t" "$corpus"
  mkdir -p "$art"
  echo "== $t: fuzzing for ${seconds}s"
  log=build-fuzz/$t.log
  if ! "$bin" "$corpus" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 \
       -max_len=65536 -artifact_prefix="$art" -print_final_stats=1 >"$log" 2>&1; then
    echo "   FINDING: see $log and $art"; status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  echo "   $runs executions, $((runs / seconds)) per second, $(ls "$corpus" | wc -l) corpus files"
done
exit $status
