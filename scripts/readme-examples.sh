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
exec env PATH="$scratch/.bin:/usr/bin:$PATH" python3 - "$readme" "$scratch" "$update" <<'PY'
import difflib, re, subprocess, sys

readme, scratch, update = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
lines = open(readme).read().split("\n")
MARK = re.compile(r'^<!-- readme-(example|file)(?:\s+(.*?))?\s*-->$')


def run(cmd):
    p = subprocess.run(["bash", "-c", cmd], cwd=scratch, capture_output=True, text=True,
                       timeout=600)
    return p.stdout.rstrip("\n").split("\n") if p.stdout.strip() else [], p.returncode, p.stderr


def matches(want, got):
    """Exact line match, where a "..." line of want stands for any lines."""
    if not want:
        return not got
    if want[0].strip() == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0] == got[0] and matches(want[1:], got[1:])


def session(block, ignore):
    """Split a console block into (command, expected lines) pairs."""
    out, cmd, exp = [], None, []
    for l in block:
        if cmd is not None and not exp and cmd.count("'") % 2:
            cmd += "\n" + l  # a quoted argument goes on
            continue
        if l.startswith("$ "):
            if cmd is not None:
                out.append((cmd, exp))
            cmd, exp = l[2:], []
        elif cmd is not None:
            exp.append(l)
    if cmd is not None:
        out.append((cmd, exp))
    for _, exp in out:  # blank lines between commands are layout
        while exp and not exp[-1].strip():
            exp.pop()
    return out


failures, checked, i, new = 0, 0, 0, list(lines)
while i < len(lines):
    m = MARK.match(lines[i].strip())
    if not m:
        i += 1
        continue
    kind, arg = m.group(1), (m.group(2) or "").strip()
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j >= len(lines) or not lines[j].startswith("```"):
        print(f"README.md:{i + 1}: marker not followed by a fenced block")
        sys.exit(2)
    k = j + 1
    while k < len(lines) and not lines[k].startswith("```"):
        k += 1
    block = lines[j + 1:k]
    checked += 1
    where = f"README.md:{j + 1}"
    if kind == "file":
        want = open(f"{scratch}/{arg}").read().rstrip("\n").split("\n")
        if block != want:
            failures += 1
            print(f"FAIL {where}: the block is not {arg}:")
            print("\n".join(difflib.unified_diff(want, block, arg, "README", lineterm="")))
        else:
            print(f"ok   {where}: {arg}")
    else:
        im = re.fullmatch(r'ignore="(.*)"', arg) if arg else None
        if arg and not im:
            print(f"README.md:{i + 1}: unknown marker option {arg!r}")
            sys.exit(2)
        ignore = re.compile(im.group(1)) if im else None
        keep = lambda ls: [l for l in ls if not (ignore and ignore.search(l))]
        rebuilt = []
        for cmd, exp in session(block, ignore):
            real = cmd.replace("build/streamtp", "streamtp")
            got, rc, err = run(real)
            rebuilt += (["", ] if rebuilt else []) + ("$ " + cmd).split("\n") + got
            if rc != 0:
                failures += 1
                print(f"FAIL {where}: `{cmd}` exited with {rc}: {err.strip()[:500]}")
            elif not matches(keep(exp), keep(got)):
                failures += 1
                print(f"FAIL {where}: `{cmd}` prints other lines:")
                print("\n".join(difflib.unified_diff(exp, got, "README", "now", lineterm="")))
            else:
                print(f"ok   {where}: $ {cmd}")
        if update:
            new[j + 1:k] = rebuilt
            if len(rebuilt) != k - j - 1:
                print("(--update changed the number of lines: run it again)")
                open(readme, "w").write("\n".join(new))
                sys.exit(1)
    i = k + 1
if update:
    open(readme, "w").write("\n".join(new))
print(f"{checked - failures}/{checked} README blocks agree")
sys.exit(1 if failures else 0)
PY
