#!/usr/bin/env bash
# run.sh: end-to-end CLI tests as data (one directory per case, in cases/):
#   args               the arguments, split on whitespace (run from tests/cli/)
#   rc                 expected exit status (default 0)
#   stdout, stderr     expected output, exactly
#   stdout.contains,   lines that must each appear in the output
#   stderr.contains
#   stdin              fed to standard input (default: nothing)
#   stdout.to          a device standard output goes to instead (/dev/full)
#   pipe               a command standard output is piped into ("head -1"),
#                      streamtp running with SIGPIPE ignored; stdout checks
#                      then apply to what the command printed
#   output.contains    lines that must appear in the file named @OUT@ in args
# A wall time in JSON ("seconds":0.0123) is compared as "seconds":# (its
# value changes from run to run; that it is there is checked).
# Usage: run.sh PATH/TO/streamtp [CASE...]
set -uo pipefail
bin=$(realpath "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=($(ls cases))
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
for c in "${cases[@]}"; do
  d="cases/$c"
  why=""
  read -ra args < "$d/args"
  args=("${args[@]//@OUT@/$tmp/output}")
  rm -f "$tmp/output"
  want_rc=0; [ -f "$d/rc" ] && want_rc=$(cat "$d/rc")
  input=/dev/null; [ -f "$d/stdin" ] && input="$d/stdin"
  if [ -f "$d/pipe" ]; then
    (trap '' PIPE; timeout 120 "$bin" "${args[@]}" < "$input" 2> "$tmp/err" | $(cat "$d/pipe") > "$tmp/out"
     exit "${PIPESTATUS[0]}")
  elif [ -f "$d/stdout.to" ]; then
    timeout 120 "$bin" "${args[@]}" < "$input" > "$(cat "$d/stdout.to")" 2> "$tmp/err"
    rc=$?; : > "$tmp/out"; (exit $rc)
  else
    timeout 120 "$bin" "${args[@]}" < "$input" > "$tmp/out" 2> "$tmp/err"
  fi
  rc=$?
  sed -Ei 's/"seconds":[0-9.e+-]+/"seconds":#/g' "$tmp/out"
  if [ -f "$d/output.contains" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      [ -z "$line" ] && continue
      grep -qF -- "$line" "$tmp/output" 2>/dev/null || why="$why; output file lacks: $line"
    done < "$d/output.contains"
  fi
  [ "$rc" = "$want_rc" ] || why="exit status $rc, expected $want_rc"
  for s in stdout stderr; do
    f=$tmp/out; [ $s = stderr ] && f=$tmp/err
    if [ -f "$d/$s" ] && ! diff -u "$d/$s" "$f" > "$tmp/diff"; then
      why="$why; $s differs:
$(cat "$tmp/diff")"
    fi
    if [ -f "$d/$s.contains" ]; then
      while IFS= read -r line || [ -n "$line" ]; do
        [ -z "$line" ] && continue
        grep -qF -- "$line" "$f" || why="$why; $s lacks: $line"
      done < "$d/$s.contains"
    fi
  done
  if [ -n "$why" ]; then
    fail=$((fail + 1))
    echo "FAIL $c: ${why#; }"
    echo "  command: streamtp ${args[*]}"
    echo "  stderr: $(head -c 2000 "$tmp/err")"
  else
    echo "ok   $c"
  fi
done
echo "$((${#cases[@]} - fail))/${#cases[@]} CLI cases passed"
[ $fail -eq 0 ]
