#!/usr/bin/env python3
"""cli-docs.py: the man page streamtp.1 and the bash completion of streamtp,
both generated at build time from one source: the help texts the command
prints (`streamtp --help`, `streamtp COMMAND --help`), so that neither can
drift from the options the command really takes.

Usage: cli-docs.py man|bash STREAMTP OUT
"""
import re
import subprocess
import sys


def run_help(binary, *args):
    out = subprocess.run([binary, *args, "--help"], check=True, capture_output=True, text=True)
    return out.stdout


def parse_global(text):
    """Description paragraph, commands [(name, synopsis)], trailing notes."""
    lines = text.splitlines()
    desc, commands, notes = [], [], []
    part = "head"
    for line in lines:
        if line.startswith("usage:"):
            continue
        if line.strip() == "commands:":
            part = "commands"
            continue
        if part == "head":
            desc.append(line)
        elif part == "commands":
            m = re.match(r"  (\w[\w-]*)\s{2,}(.*)$", line)
            if m and not line.startswith("  streamtp"):
                commands.append((m.group(1), m.group(2)))
            elif line.strip():
                part = "notes"
                notes.append(line.strip())
        else:
            if line.strip():
                notes.append(line.strip())
    return " ".join(l.strip() for l in desc if l.strip()), commands, notes


def parse_command(text):
    """usage line, paragraphs of details, options [(flags, metavar, help)]."""
    lines = text.splitlines()
    usage = lines[0][len("usage: "):] if lines and lines[0].startswith("usage:") else ""
    paragraphs, options, cur = [], [], []
    in_opts = False
    for line in lines[1:]:
        if line.strip() == "options:":
            in_opts = True
            continue
        if in_opts:
            # "  -o, --output FILE   help", or a long list of values with
            # the help on the next line
            m = re.match(r"\s{2,6}(-\w, )?(--[\w-]+)(?: (\S+))?(?:\s{2,}(.*))?$", line)
            if m:
                short = m.group(1)[:-2] if m.group(1) else None
                options.append((short, m.group(2), m.group(3), (m.group(4) or "").strip()))
            elif options and line.strip():  # continuation of the previous help
                s, l, v, h = options[-1]
                options[-1] = (s, l, v, (h + " " + line.strip()).strip())
            continue
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paragraphs.append(" ".join(cur))
            cur = []
    if cur:
        paragraphs.append(" ".join(cur))
    return usage, paragraphs, options


def roff(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def man_page(binary):
    version = subprocess.run([binary, "--version"], check=True, capture_output=True,
                             text=True).stdout.split()[-1]
    desc, commands, notes = parse_global(run_help(binary))
    out = [f'.TH STREAMTP 1 "" "streamtp {version}" "User Commands"',
           ".SH NAME", "streamtp \\- " + roff(desc.split(".")[0].split(" (")[0].lower()),
           ".SH SYNOPSIS"]
    for name, syn in commands:
        out += [".br", f".B streamtp {name}", roff(syn)]
    out += [".SH DESCRIPTION", roff(desc),
            ".PP", "Every command prints its own help with \\fB\\-\\-help\\fR; this page "
            "gathers them.  The input formats and the JSON keys are described in "
            "docs/format.md, the methods in docs/design.md (installed under "
            "share/doc/streamtp).",
            ".SH COMMANDS"]
    for name, _ in commands:
        usage, paragraphs, options = parse_command(run_help(binary, name))
        out += [f'.SS "streamtp {name}"', ".nf", ".B " + roff(usage), ".fi"]
        for p in paragraphs:
            if p.startswith("Exit status"):
                continue
            out += [".PP", roff(p)]
        for short, long, metavar, text in options:
            flag = (f"\\fB{roff(short)}\\fR, " if short else "") + f"\\fB{roff(long)}\\fR"
            if metavar:
                flag += f" \\fI{roff(metavar)}\\fR"
            out += [".TP", flag, roff(text)]
    out += [".SH EXIT STATUS"]
    out += [roff(n) for n in notes if n.startswith("Exit status")] or ["0 success, 1 internal "
                                                                      "failure, 2 bad input or usage."]
    out += [".SH SEE ALSO", "\\fBdot\\fR(1), the streamtp README and docs/format.md."]
    return "\n".join(out) + "\n"


def law_names(binary):
    """The law names, from the command's own refusal of an unknown one."""
    err = subprocess.run([binary, "simulate", "--law", "?", "-"], capture_output=True,
                         text=True, stdin=subprocess.DEVNULL).stderr
    m = re.search(r"known laws: ([\w, -]+)", err)
    if not m:
        sys.exit("cli-docs.py: `streamtp simulate --law ?` did not list the laws: " + err)
    return [w.strip() for w in m.group(1).split(",")]


TINY_MAPPING = '{"stages":[{"name":"T","work":1}],"processors":[{"name":"P","speed":1}],' \
               '"mapping":[["P"]]}'


def exact_law_names(binary):
    """The laws of an exact value (eval --law): det, which eval echoes, and the
    phase-type families the library names when it refuses another law."""
    out = subprocess.run([binary, "eval", "-", "--law", "gamma:cv=0.5", "--json"],
                         input=TINY_MAPPING, capture_output=True, text=True).stdout
    m = re.search(r"exact values exist for ([\w, ]+) laws", out)
    if not m:
        sys.exit("cli-docs.py: `streamtp eval --law gamma:cv=0.5` did not name the phase-type "
                 "laws: " + out)
    exact = {"det"} | {w.strip() for w in re.split(r",| and ", m.group(1)) if w.strip()}
    return [w for w in law_names(binary) if w in exact]


def completion_values(binary, long, metavar, text=""):
    """The values an option takes: its metavar "a|b|c" (the list cli_parse checks),
    the law names for a law SPEC (only the phase-type ones where the option asks
    for an exact value: "phase-type law" in its help); nothing for a free value."""
    if metavar and "|" in metavar and re.fullmatch(r"[a-z0-9|-]+", metavar):
        return metavar.split("|")
    if long == "--law" and metavar == "SPEC":
        return exact_law_names(binary) if "phase-type law" in text else law_names(binary)
    return []


def bash_completion(binary):
    _, commands, _ = parse_global(run_help(binary))
    names = [n for n, _ in commands]
    cases = []
    for name in names:
        usage, _, options = parse_command(run_help(binary, name))
        words = []
        for short, long, _, _ in options:
            words.append(long)
            if short:
                words.append(short)
        choices = []
        for short, long, metavar, text in options:
            values = completion_values(binary, long, metavar, text)
            if values:
                flags = long + (f"|{short}" if short else "")
                choices.append(f"      {flags}) COMPREPLY=($(compgen -W '{' '.join(values)}' -- \"$cur\")); return ;;")
        cases.append(f"    {name})\n      opts='{' '.join(words)}'\n      case $prev in\n"
                     + "\n".join(choices + ["      *) ;;"]) + "\n      esac ;;")
    return f"""# bash completion for streamtp (generated from its --help by scripts/cli-docs.py)
_streamtp() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} opts=
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W '{' '.join(names)} help --help --version' -- "$cur"))
    return
  fi
  case ${{COMP_WORDS[1]}} in
{chr(10).join(cases)}
    help) COMPREPLY=($(compgen -W '{' '.join(names)}' -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  fi
}}
complete -o default -F _streamtp streamtp
"""


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("man", "bash"):
        sys.exit("usage: cli-docs.py man|bash STREAMTP OUT")
    text = man_page(sys.argv[2]) if sys.argv[1] == "man" else bash_completion(sys.argv[2])
    with open(sys.argv[3], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
