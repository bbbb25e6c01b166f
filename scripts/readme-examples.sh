#!/usr/bin/env bash
# readme-examples.sh: the examples of the README and of the manual (docs/*.md,
# docs/guide/*.md) are true.  Every code block must be preceded by a marker
# comment saying how it is checked:
#
#   <!-- readme-example -->                  a console session: lines "$ CMD"
#   <!-- readme-example ignore="REGEX" -->   are run (bash, from a scratch
#                                            directory that mirrors the
#                                            repository), and the lines after
#                                            each must be its output, exactly;
#                                            an expected line "..." stands for
#                                            any lines; lines matching REGEX
#                                            (times, rates) are left out of both
#   <!-- readme-file PATH -->                the block is the file PATH as it is
#
# `streamtp` and `build/streamtp` in commands run the binary under test.  New
# README sections opt in by adding a marker.  Exit status 1 when a block has
# drifted (the differences are printed), 2 for a malformed marker.
# Relative links must reach a file of the tree and a heading in it.
# Usage: scripts/readme-examples.sh [--bin PATH/TO/streamtp] [--update] [FILE.md...]
#   (default: README.md docs/*.md docs/guide/*.md python/README.md)
#   --update rewrites the marked console blocks with the current outputs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/streamtp update=0 files=()
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$(realpath "$2"); shift ;;
    --update) update=1 ;;
    *) files+=("$(realpath "$1")") ;;
  esac
  shift
done
[ ${#files[@]} -gt 0 ] || files=("$root"/README.md "$root"/docs/*.md "$root"/docs/guide/*.md "$root"/python/README.md)
[ -x "$bin" ] || { echo "readme-examples: no binary at $bin (build first, or --bin)" >&2; exit 2; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
for entry in "$root"/*; do  # the repository, read-only by convention; outputs land here
  case $(basename "$entry") in build*) ;; *) ln -s "$entry" "$scratch/" ;; esac
done
mkdir -p "$scratch/build" "$scratch/.bin"
ln -s "$bin" "$scratch/build/streamtp"
ln -s "$bin" "$scratch/.bin/streamtp"
# Debian's python3 first: the examples in Python use its numpy and scipy.
# Every file is checked; the exit status is the worst (1 drift, 2 malformed).
worst=0
for f in "${files[@]}"; do
  rc=0
  env PATH="$scratch/.bin:/usr/bin:$PATH" python3 "$root/scripts/readme_examples.py" \
    "$f" "$scratch" "$update" || rc=$?
  [ "$rc" -gt "$worst" ] && worst=$rc
done
exit "$worst"
