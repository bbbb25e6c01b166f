#!/usr/bin/env bash
# readme-examples.sh: the README's examples are true.  Every fenced block of
# README.md preceded by a marker comment is checked:
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
# Usage: scripts/readme-examples.sh [--bin PATH/TO/streamtp] [--update] [README]
#   --update rewrites the marked console blocks with the current outputs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/streamtp update=0 readme=$root/README.md
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$(realpath "$2"); shift ;;
    --update) update=1 ;;
    *) readme=$(realpath "$1") ;;
  esac
  shift
done
[ -x "$bin" ] || { echo "readme-examples: no binary at $bin (build first, or --bin)" >&2; exit 2; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
for entry in "$root"/*; do  # the repository, read-only by convention; outputs land here
  case $(basename "$entry") in build*) ;; *) ln -s "$entry" "$scratch/" ;; esac
done
mkdir -p "$scratch/build" "$scratch/.bin"
ln -s "$bin" "$scratch/build/streamtp"
ln -s "$bin" "$scratch/.bin/streamtp"
# Debian's python3 first: the README's Python examples use its numpy and scipy.
exec env PATH="$scratch/.bin:/usr/bin:$PATH" python3 "$root/scripts/readme_examples.py" \
  "$readme" "$scratch" "$update"
