#!/usr/bin/env bash
# run.sh: `cmake --install` into a temporary prefix, then use what it put
# there as a user would: the binary (through its RUNPATH), the man page, the
# bash completion, and a small C program (consumer/) built against the
# library with pkg-config (shared and static) and with CMake's
# find_package(streamtp) (shared and static).  Every program must print the
# throughputs `streamtp eval --json` gives for the same file.
# Usage: run.sh BUILD_DIR [EXTRA_CFLAGS]   (EXTRA_CFLAGS: the sanitizer flags
# of a sanitized build, which the consumer must share)
set -euo pipefail
build=$(realpath "$1"); extra=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
libdir=$(dirname "$(find "$prefix" -name 'libstreamtp.so.*.*' | head -1)")
[ -n "$libdir" ] || fail "no versioned shared library installed"
for f in "$libdir/libstreamtp.a" "$libdir/pkgconfig/streamtp.pc" \
         "$libdir/cmake/streamtp/streamtpConfig.cmake" "$prefix/include/streamtp/streamtp.h" \
         "$prefix/include/streamtp/streamtp_graph.h" "$prefix/bin/streamtp" \
         "$prefix/share/man/man1/streamtp.1" \
         "$prefix/share/bash-completion/completions/streamtp"; do
  [ -e "$f" ] || fail "not installed: ${f#$prefix/}"
done
soname=$(readelf -d "$libdir"/libstreamtp.so.*.* | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[[ $soname =~ ^libstreamtp\.so\.[0-9]+$ ]] || fail "SONAME '$soname' has no version"
[ -e "$libdir/$soname" ] || fail "no $soname link in $libdir"
echo "ok   library $(basename "$libdir"/libstreamtp.so.*.*), SONAME $soname"

# The binary runs from the prefix with no LD_LIBRARY_PATH, and uses the
# installed library (RUNPATH $ORIGIN/../lib), not the build tree's.
env -u LD_LIBRARY_PATH "$prefix/bin/streamtp" --version > /dev/null || fail "installed binary does not run"
# ldd's output is kept whole first: under pipefail, `ldd | grep -q` fails at
# random when grep exits on the first match and ldd dies of SIGPIPE.
loaded=$(env -u LD_LIBRARY_PATH ldd "$prefix/bin/streamtp" | grep libstreamtp)
[[ $loaded == *"=> $prefix/"*libstreamtp.so* ]] \
  || fail "installed binary does not load $libdir/libstreamtp.so: $loaded"
echo "ok   bin/streamtp runs with its RUNPATH"

# The man page renders without warnings and documents every command.
MANWIDTH=80 man -l "$prefix/share/man/man1/streamtp.1" > "$tmp/man.txt" 2> "$tmp/man.err" || fail "man -l failed"
[ ! -s "$tmp/man.err" ] || fail "man -l warns: $(cat "$tmp/man.err")"
for c in $("$prefix/bin/streamtp" --help | sed -n '/^commands:/,/^$/p' | awk 'NR>1 && NF {print $1}'); do
  grep -q "streamtp $c" "$tmp/man.txt" || fail "man page lacks the command $c"
done
grep -q -- '--max-states' "$tmp/man.txt" || fail "man page lacks the options"
echo "ok   man -l renders streamtp.1"

# The completion completes commands and options.
got=$(bash -c "source '$prefix/share/bash-completion/completions/streamtp'
  COMP_WORDS=(streamtp ev); COMP_CWORD=1; _streamtp; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(streamtp eval --mo); COMP_CWORD=2; _streamtp; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(streamtp eval --model s); COMP_CWORD=3; _streamtp; echo \"\${COMPREPLY[*]}\"")
[ "$got" = $'eval\n--model\nstrict' ] || fail "bash completion gave: $got"
got=$(bash -c "source '$prefix/share/bash-completion/completions/streamtp'
  COMP_WORDS=(streamtp simulate x --law erl); COMP_CWORD=4; _streamtp; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(streamtp bcast x --inter ''); COMP_CWORD=4; _streamtp; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(streamtp eval x --format ''); COMP_CWORD=4; _streamtp; echo \"\${COMPREPLY[*]}\"")
[ "$got" = $'erlang\nflat fef ecef ecef-la ecef-lat ecef-lat-max bottomup all\ntext jsonl csv table' ] ||
  fail "bash completion of values gave: $got"
/usr/bin/python3 "$here/completion.py" "$prefix/share/bash-completion/completions/streamtp" \
  "$prefix/bin/streamtp" || fail "the completion's values are not the command's"
echo "ok   bash completion (commands, options, values)"

# The reference numbers, from the installed command.
map=$src/examples/example-a.json
want=$("$prefix/bin/streamtp" eval "$map" --json | python3 -c '
import json, sys
o = json.loads(sys.stdin.readline())
print(o["name"], repr(o["deterministic"]["throughput"]), repr(o["exponential"]["throughput"]))')
check() { # NAME BINARY
  local got; got=$(env -u LD_LIBRARY_PATH "$2" "$map") || fail "$1: the program failed"
  got=$(python3 -c 'import sys; n, d, e = sys.argv[1:]; print(n, repr(float(d)), repr(float(e)))' $got)
  [ "$got" = "$want" ] || fail "$1 printed '$got', streamtp eval gives '$want'"
  echo "ok   $1: $got"
}

# The Python module, from the prefix, loads the prefix's library.
pydir=$(dirname "$(find "$prefix" -path '*/streamtp/__init__.py' | head -1)")
[ -f "$pydir/_config.py" ] || fail "the Python module is not installed"
preload=()  # a sanitized library loads into python3 only after the sanitizer runtimes
[ -n "$extra" ] && preload=(LD_PRELOAD="$(cc -print-file-name=libasan.so):$(cc -print-file-name=libubsan.so)"
                            ASAN_OPTIONS=detect_leaks=0)
got=$(cd "$tmp" && env -u LD_LIBRARY_PATH -u STREAMTP_LIBRARY "${preload[@]}" \
      PYTHONPATH="$(dirname "$pydir")" /usr/bin/python3 -c '
import os, sys, streamtp
r = streamtp.evaluate(sys.argv[1])
print(os.path.realpath(streamtp.library_path).startswith(os.path.realpath(sys.argv[2])),
      r["name"], repr(r["deterministic"]["throughput"]), repr(r["exponential"]["throughput"]))' \
      "$map" "$prefix") || fail "python3 -c 'import streamtp' from the prefix"
[ "$got" = "True $want" ] || fail "Python from the prefix printed '$got', streamtp eval gives '$want'"
echo "ok   python3: import streamtp from the prefix"
# streamtp.command, the route to the executable, uses the prefix's streamtp.
got=$(cd "$tmp" && env -u LD_LIBRARY_PATH -u STREAMTP_LIBRARY -u STREAMTP_COMMAND "${preload[@]}" \
      PATH=/usr/bin:/bin PYTHONPATH="$(dirname "$pydir")" /usr/bin/python3 -c '
import os, sys, streamtp
from streamtp import _command
print(os.path.realpath(_command.executable()) == os.path.realpath(sys.argv[2] + "/bin/streamtp"),
      streamtp.command("teg", sys.argv[1])[0]["transitions"],
      streamtp.teg(sys.argv[1])["transitions"])' "$map" "$prefix") ||
  fail "streamtp.command from the prefix"
[ "$got" = "True 42 42" ] || fail "streamtp.command and streamtp.teg from the prefix gave '$got' (want the prefix's streamtp, 42 transitions)"
echo "ok   python3: streamtp.command runs the prefix's streamtp"
grep -qF -- "-- Python: /usr/bin/python3 does not look in $(dirname "$pydir")" "$tmp/install.log" &&
  grep -qF "use PYTHONPATH=$(dirname "$pydir")" "$tmp/install.log" ||
  fail "cmake --install into a private prefix does not say to set PYTHONPATH"
echo "ok   cmake --install says which PYTHONPATH a private prefix needs"

export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=c11 $extra "$here/consumer/main.c" -o "$tmp/pc-shared" $(pkg-config --cflags --libs streamtp) \
  -Wl,-rpath,"$libdir" || fail "pkg-config build (shared)"
check "pkg-config, shared" "$tmp/pc-shared"
cc -std=c11 $extra "$here/consumer/main.c" -o "$tmp/pc-static" $(pkg-config --cflags streamtp) \
  -Wl,-Bstatic $(pkg-config --libs-only-l streamtp) -Wl,-Bdynamic \
  $(pkg-config --static --libs-only-L --libs-only-l streamtp | sed 's/-lstreamtp//') \
  || fail "pkg-config build (static)"
! ldd "$tmp/pc-static" | grep libstreamtp > /dev/null || fail "the static build still loads libstreamtp.so"
check "pkg-config, static" "$tmp/pc-static"

for target in streamtp streamtp_static; do
  cmake -S "$here/consumer" -B "$tmp/cm-$target" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
    -DSTP_CONSUMER_LINK=streamtp::$target > "$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "cmake configure ($target)"; }
  cmake --build "$tmp/cm-$target" > "$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "cmake build ($target)"; }
  check "find_package(streamtp), streamtp::$target" "$tmp/cm-$target/consumer"
done
