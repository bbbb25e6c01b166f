#!/usr/bin/env python3
"""completion.py: the bash completion offers, after an option, exactly the
values the command takes, and never a metavariable.

For every command and option of the completion file: no word offered holds
an upper-case letter (a metavariable such as "H" or "N"); the command takes
each word offered (`streamtp CMD --OPT WORD` is not refused as a value); a
wrong value is refused with the same list ("is not one of a, b, c", or
"known laws: ..."), so the completion and the command cannot drift; and the
options the issue named (--format, --law, --exp-method, --intra, --solver)
get values wherever a command has them.

Usage: completion.py COMPLETION_FILE STREAMTP
"""
import re
import subprocess
import sys

comp, binary = sys.argv[1], sys.argv[2]
text = open(comp).read()
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


def stderr_of(*args):
    return subprocess.run([binary, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL).stderr


def help_line(cmd, opt):
    """The first line of the help of cmd's option opt."""
    out = subprocess.run([binary, cmd, "--help"], capture_output=True, text=True).stdout
    m = re.search(r"^\s+(?:-\w, )?" + re.escape(opt) + r"\b[^\n]*", out, re.M)
    return m.group(0) if m else ""


def exact_laws():
    """det and the laws the library names as those of exact values, when eval
    --law is given a law that is not phase-type."""
    tiny = '{"stages":[{"name":"T","work":1}],"processors":[{"name":"P","speed":1}],"mapping":[["P"]]}'
    out = subprocess.run([binary, "eval", "-", "--law", "gamma:cv=0.5", "--json"], input=tiny,
                         capture_output=True, text=True).stdout
    m = re.search(r"exact values exist for ([\w, ]+) laws", out)
    return {"det"} | set(re.split(r", | and ", m.group(1))) if m else set()


if not {"erlang", "hyperexp", "ph"} <= exact_laws() or "gamma" in exact_laws():
    fail(f"the exact laws named by eval --law gamma:cv=0.5: {sorted(exact_laws())}")

cases = re.findall(r"^    ([\w-]+)\)\n      opts='([^']*)'\n      case \$prev in\n(.*?)      \*\) ;;",
                   text, re.S | re.M)
if len(cases) < 10:
    fail(f"only {len(cases)} commands in the completion")
checked = 0
for cmd, opts, body in cases:
    offered = {}
    for flags, words in re.findall(r"^      ([-\w|]+)\) COMPREPLY=\(\$\(compgen -W '([^']*)'", body, re.M):
        offered[flags.split("|")[0]] = words.split()
    for opt in ("--format", "--law", "--exp-method", "--intra", "--solver", "--model",
                "--inter", "--strategy", "--tree"):
        if opt in opts.split() and opt not in offered and not (cmd == "bcast" and opt == "--model"):
            fail(f"{cmd} {opt}: no values offered")
    for opt, words in offered.items():
        upper = [w for w in words if re.search(r"[A-Z]", w)]
        if upper:
            fail(f"{cmd} {opt}: offers metavariables {upper}")
        # a law SPEC is read by one parser for every command, after the
        # command's own checks: ask simulate, which reads it first
        probe = ("simulate", "--law") if opt == "--law" else (cmd, opt)
        for w in words:
            err = stderr_of(*probe, w)
            if "is not one of" in err or "unknown law" in err:
                fail(f"{cmd} {opt} {w}: refused: {err.strip()}")
        err = stderr_of(*probe, "zzz-not-a-value")
        if opt == "--law":
            m = re.search(r"known laws: ([\w, -]+)", err)
            listed = m.group(1).split(", ") if m else None
        else:
            m = re.search(r"is not one of ([\w, -]+)", err)
            listed = m.group(1).split(", ") if m else None
        if opt == "--law" and listed and "phase-type law" in help_line(cmd, opt):
            listed = [w for w in listed if w in exact_laws()]  # an exact value: phase-type only
        if listed != words:
            fail(f"{cmd} {opt}: completion offers {words}, the command lists {listed} ({err.strip()})")
        checked += 1
print(f"{'ok  ' if not fails else 'FAIL'} completion: {checked} options with values "
      f"in {len(cases)} commands, each value taken, the same list as the command's")
sys.exit(1 if fails else 0)
