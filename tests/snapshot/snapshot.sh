#!/usr/bin/env bash
# snapshot.sh: record the whole output of the command line and of the
# Python module, so that a refactoring step can be diffed against the tree
# before it ("output bytes are a contract", docs/development.md).
# Records, under OUTDIR: every CLI case of tests/cli/cases (its stdout,
# stderr and exit status, whatever the case itself checks), every line of
# tests/snapshot/commands.txt, and tests/snapshot/python_calls.py.
# Wall times ("seconds":N in JSON, "N s" in text) are masked.
# Usage: tests/snapshot/snapshot.sh BUILD_DIR OUTDIR; then diff -r OLD NEW
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "$1"); out=$(realpath -m "$2")
bin=$build/streamtp
mkdir -p "$out/cases" "$out/commands"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mask() { sed -E -e 's/"([a-z_]*seconds?[a-z_]*)":[0-9.e+-]+/"\1":#/g' -e "s|$tmp|@TMP@|g" \
  -e 's/[0-9.]+ (million|thousand)? ?(firings|candidates|states)\/s/# \2\/s/g' \
  -e 's/\([0-9]+\/s\)/(#\/s)/g' \
  -e 's/[0-9]+(\.[0-9]+)? (s|ms|seconds|files\/s)\b/# \2/g' \
  -e 's/,[0-9.]+(e-[0-9]+)?,(OK|E[A-Z]+),/,#,\2,/g' "$1"; }
record() { # NAME CWD ARGS...
  local name=$1 cwd=$2; shift 2
  local input=/dev/null; [ -f "$tmp/stdin" ] && input=$tmp/stdin
  (cd "$cwd" && timeout 300 "$bin" "$@" < "$input" > "$tmp/o" 2> "$tmp/e"; echo $? > "$tmp/rc")
  { echo "\$ streamtp ${*//$tmp/@TMP@}"; echo "-- rc $(cat "$tmp/rc")"; echo "-- stdout"; mask "$tmp/o"
    echo "-- stderr"; mask "$tmp/e"; } > "$out/$name"
}
cd "$top/tests/cli"
for d in cases/*/; do
  c=$(basename "$d"); rm -f "$tmp/stdin"
  [ -f "$d/stdin" ] && cp "$d/stdin" "$tmp/stdin"
  [ -f "$d/stdout.to" ] || [ -f "$d/pipe" ] && continue
  read -ra args < "$d/args"
  args=("${args[@]//@OUT@/$tmp/output}")
  record "cases/$c" "$top/tests/cli" "${args[@]}"
done
rm -f "$tmp/stdin"
i=0
while IFS= read -r line; do
  case $line in ''|'#'*) continue ;; esac
  i=$((i + 1)); rm -rf "$tmp/gen"
  read -ra args <<< "${line//@TMP@/$tmp}"
  record "commands/$(printf '%03d' $i)" "$top" "${args[@]}"
  if [ -d "$tmp/gen" ]; then (cd "$tmp/gen" && for f in *; do echo "== $f"; cat "$f"; done) >> "$out/commands/$(printf '%03d' $i)"; fi
done < "$top/tests/snapshot/commands.txt"
cd "$top"
STREAMTP=$bin STREAMTP_LIBRARY=$(ls "$build"/libstreamtp.so* 2>/dev/null | head -n 1) \
  PYTHONPATH=$top/python /usr/bin/python3 tests/snapshot/python_calls.py > "$out/python.jsonl" 2> "$out/python.stderr"
echo "snapshot: $(find "$out" -type f | wc -l) files in $out"
