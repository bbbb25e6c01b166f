#!/usr/bin/env bash
# run.sh: the Python module installs as a package with Debian's tools,
# offline (pip install --no-build-isolation --no-index, python/pyproject.toml),
# and the installed copy gives what the command gives; the install writes
# nothing into the tree it builds from (the package's own build backend,
# python/_backend.py: no build/, no egg-info), which is checked on a copy.
# Usage: run.sh PATH/TO/streamtp PATH/TO/libstreamtp.so
set -euo pipefail
bin=$(realpath "$1") lib=$(realpath "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; exit 1; }
cp -r "$root/python" "$tmp/src"
find "$tmp/src" -name __pycache__ -prune -exec rm -rf {} +
# The interpreter's bytecode caches (__pycache__/, which importing the
# in-tree backend writes beside it, as it does for any module imported from
# a writable directory) are not the build's output and are left out; run
# with PYTHONDONTWRITEBYTECODE unset so that the check is the same on every
# machine (a bare Debian 12 writes them, a shell that sets it does not).
tree() { (cd "$tmp/src" && find . -name __pycache__ -prune -o -print | sort); }
tree > "$tmp/before"
env -u PYTHONDONTWRITEBYTECODE /usr/bin/python3 -m pip install -q --no-build-isolation --no-index \
  --no-cache-dir --target "$tmp/site" "$tmp/src" 2> "$tmp/pip.err" ||
  { cat "$tmp/pip.err"; fail "pip install"; }
tree > "$tmp/after"
diff "$tmp/before" "$tmp/after" > "$tmp/added" || fail "pip install wrote into the source tree: $(cat "$tmp/added")"
echo "ok   pip install wrote nothing into the tree it built from"
[ -f "$tmp/site/streamtp/__init__.py" ] || fail "pip put no streamtp/__init__.py in the target"
ls "$tmp/site"/streamtp-*.dist-info/METADATA > /dev/null || fail "no dist-info"
grep -qx "Version: $("$bin" --version | awk '{print $NF}')" "$tmp/site"/streamtp-*.dist-info/METADATA ||
  fail "the package's version is not the command's ($("$bin" --version))"
echo "ok   pip install --no-build-isolation --no-index: streamtp in the target, version $("$bin" --version | awk '{print $NF}')"
map=$root/examples/example-a.json
want=$("$bin" eval "$map" --json | /usr/bin/python3 -c '
import json, sys; d = json.load(sys.stdin); print(repr(d["deterministic"]["throughput"]), repr(d["exponential"]["throughput"]))')
got=$(cd "$tmp" && STREAMTP_LIBRARY="$lib" PYTHONPATH="$tmp/site" /usr/bin/python3 -c '
import sys, streamtp
assert streamtp.__file__.startswith(sys.argv[2]), streamtp.__file__
r = streamtp.evaluate(sys.argv[1])
print(repr(r["deterministic"]["throughput"]), repr(r["exponential"]["throughput"]))' "$map" "$tmp/site") ||
  fail "import streamtp from the installed package"
[ "$got" = "$want" ] || fail "installed package printed '$got', streamtp eval gives '$want'"
echo "ok   the installed package evaluates as the command: $got"
