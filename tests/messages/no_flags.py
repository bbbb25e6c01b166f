#!/usr/bin/env python3
"""no_flags.py: the library's messages name no command-line option.

The library describes a limit or a bad argument in its own words (a limit
carries its kind, needed and allowed: stp_limit); the command line adds
"raise --max-states", Python its keyword argument (docs/guide/c.md,
"Errors and limits").  The text reports of report/, which are the
command's own reports, may name its options.  Fails (exit 1, one line per
breach) when a string literal of base/, solvers/, engine/ or models/ holds
an option such as "--max-states" (adjacent literals are joined first;
comments are skipped).
Usage: no_flags.py SOURCE_DIR
       no_flags.py --self-test   (a planted breach is found, a comment is not)
"""
import os
import re
import sys
import tempfile

LIBRARY = ("base", "solvers", "engine", "models")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(-[a-z0-9]+)*")
TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def literals(text):
    """(line, joined text) of each run of adjacent string literals."""
    runs, cur, line, end = [], None, 0, -1
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if not tok.startswith('"'):
            continue  # a comment or a character constant
        between = text[end:m.start()] if end >= 0 else "x"
        if cur is not None and between.strip() == "":
            cur += tok[1:-1]
        else:
            if cur is not None:
                runs.append((line, cur))
            cur, line = tok[1:-1], text.count("\n", 0, m.start()) + 1
        end = m.end()
    if cur is not None:
        runs.append((line, cur))
    return runs


def breaches(root):
    out = []
    for top in LIBRARY:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                for line, s in literals(text):
                    m = FLAG.search(s)
                    if m:
                        rel = os.path.relpath(path, root)
                        out.append(f"{rel}:{line}: names the option {m.group(0)}: \"{s}\"")
    return out


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "engine"))
        with open(os.path.join(root, "engine", "a.c"), "w") as f:
            f.write('/* raise --max-states */\n'
                    'static const char *ok = "a -> b, x--y, -1";\n'
                    'int f(void) { return g("above the limit of %d; raise "\n'
                    '                       "--max-" "states", 3); }\n')
        got = breaches(root)
        want = ['engine/a.c:3: names the option --max-states: '
                '"above the limit of %d; raise --max-states"']
        if got != want:
            print("self-test failed:", got)
            return 1
    print("self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = breaches(argv[1])
    for b in found:
        print(b)
    print(f"no_flags: {len(found)} library message(s) naming a command-line option")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
