"""readme_examples.py: the checker behind scripts/readme-examples.sh.

Every code block of README.md (fenced, or indented by four spaces) must be
preceded by a marker comment saying how it is checked; an unmarked block is a
failure, so a new example cannot slip in unchecked.  Markers:

  <!-- readme-example [ignore="RE"] [mask="RE"] [status="N"] [tol="R"] -->
      a console session: each "$ CMD" line is run (bash, from the scratch
      copy of the tree) and the lines after it must be its output, exactly;
      an expected line "..." stands for any lines.  ignore drops the lines
      matching RE from both sides (a whole line of times); mask replaces what
      RE matches by "#" on both sides (a volatile field inside a line whose
      other fields are still compared).  tol="R" compares the numbers of a
      line within a relative tolerance R, the rest of the line exactly: for
      digits computed by other software (numpy, SciPy), which depend on the
      BLAS, the CPU and the library's version.  Every command must exit with
      status N (default 0).
  <!-- readme-run [status="N"] -->
      a block of commands without their output: each line (a trailing "\\"
      continues it) is run and must exit with status N (default 0).
  <!-- readme-file PATH -->      the block is the file PATH as it is.
  <!-- readme-table CMD -->      the Markdown table that follows is CMD's output.
  <!-- readme-numbers CMD -->    each line printed by CMD occurs in the paragraph
                                 that follows (numbers quoted in prose).
  <!-- readme-synopsis -->       usage lines "streamtp SUB ..." (indented lines
                                 continue one): each long option of each is in
                                 `streamtp SUB --help`.
  <!-- readme-paths -->          a directory listing: the first word of each line
                                 exists in the tree.
  <!-- readme-skip reason="WHY" -->  not run (e.g. a C fragment); the reason is
                                 printed so that the list of unchecked blocks is
                                 visible in every run.

Relative Markdown links ([text](path#anchor)) must name a file of the tree,
and an anchor a heading of that file (GitHub's slugs), so that the README's
one line per command keeps reaching its page of docs/guide/.

Usage (from scripts/readme-examples.sh): readme_examples.py FILE.md SCRATCH UPDATE
(FILE.md is README.md or a page of docs/; its blocks run from the scratch
copy's root, as the README's do).  Exit status 1 when something drifted (the
differences are printed), 2 for a malformed or missing marker.
"""
import difflib
import os
import re
import shlex
import signal
import subprocess
import sys

readme, scratch, update = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = os.path.relpath(os.path.abspath(readme), ROOT)  # in every message
lines = open(readme).read().split("\n")
MARK = re.compile(r'^<!-- readme-([a-z]+)(?:\s+(.*?))?\s*-->$')
KINDS = {"example", "run", "file", "table", "numbers", "synopsis", "paths", "skip"}
OPTION = re.compile(r'\s*([a-z]+)="((?:[^"\\]|\\.)*)"')
failures, counts, skipped, new = 0, {}, [], list(lines)


def fail(where, text):
    global failures
    failures += 1
    print(f"FAIL {where}: {text}")


def run(cmd, limit=60):
    """(stdout lines, exit status, stderr) of bash -c CMD; a command that runs
    over LIMIT seconds is killed with its process group and fails (status 124):
    the whole check must stay fast enough for CI."""
    p = subprocess.Popen(["bash", "-c", cmd], cwd=scratch, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return [], 124, f"killed after {limit} s (README commands must be quick)"
    return out.rstrip("\n").split("\n") if out.strip() else [], p.returncode, err


def options(arg, allowed, where):
    """key="value" pairs of a marker, only those allowed."""
    out, pos = {}, 0
    while pos < len(arg.rstrip()):
        m = OPTION.match(arg, pos)
        if not m or m.group(1) not in allowed:
            print(f"{where}: bad marker option in {arg!r} (allowed: {', '.join(allowed)})")
            sys.exit(2)
        out[m.group(1)] = m.group(2).replace('\\"', '"')
        pos = m.end()
    return out


def block_after(i):
    """(first line, end line, body lines, indent) of the code block after line i."""
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j < len(lines) and lines[j].startswith("```"):
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        return j + 1, k, lines[j + 1:k], ""
    if j < len(lines) and lines[j].startswith("    "):
        k = j
        while k < len(lines) and (lines[k].startswith("    ") or not lines[k].strip()):
            k += 1
        while not lines[k - 1].strip():
            k -= 1
        return j, k, [l[4:] for l in lines[j:k]], "    "
    return None


def paragraph_after(i, table=False):
    """(first line, end line) of the paragraph (or table) after line i."""
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    k = j
    while k < len(lines) and lines[k].strip() and (not table or lines[k].lstrip().startswith("|")):
        k += 1
    return j, k


def code_blocks():
    """Start lines of every code block of the README (fenced or indented)."""
    starts, fence, k = [], False, 0
    while k < len(lines):
        l = lines[k]
        if l.startswith("```"):
            if not fence:
                starts.append(k)
            fence = not fence
        elif (not fence and l.startswith("    ") and l.strip() and k > 0
              and not lines[k - 1].strip()):
            starts.append(k)
            while k + 1 < len(lines) and (lines[k + 1].startswith("    ") or not lines[k + 1].strip()):
                k += 1
        k += 1
    return starts


def complete(cmd):
    """Whether CMD closes its quotes (a quoted argument may span lines)."""
    try:
        shlex.split(cmd, comments=True)
        return True
    except ValueError:
        return False


def session(block):
    """Split a console block into (command, expected lines) pairs."""
    out, cmd, exp = [], None, []
    for l in block:
        if cmd is not None and not exp and not complete(cmd):
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


NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')


def same_line(want, got, tol):
    """want == got, or (tol set) the same text around numbers that agree
    within the relative tolerance tol."""
    if want == got or tol is None:
        return want == got
    if NUMBER.split(want) != NUMBER.split(got):
        return False
    a, b = NUMBER.findall(want), NUMBER.findall(got)
    return len(a) == len(b) and all(
        abs(float(x) - float(y)) <= tol * max(abs(float(x)), abs(float(y)))
        for x, y in zip(a, b))


def matches(want, got, tol=None):
    """Line match (exact, or numbers within tol), where a "..." line of want
    stands for any lines."""
    if not want:
        return not got
    if want[0].strip() == "...":
        return any(matches(want[1:], got[k:], tol) for k in range(len(got) + 1))
    return bool(got) and same_line(want[0], got[0], tol) and matches(want[1:], got[1:], tol)


def check_example(where, opts, body):
    ignore = re.compile(opts["ignore"]) if "ignore" in opts else None
    mask = re.compile(opts["mask"]) if "mask" in opts else None
    status = int(opts.get("status", "0"))
    tol = float(opts["tol"]) if "tol" in opts else None

    def norm(ls):
        ls = [l for l in ls if not (ignore and ignore.search(l))]
        return [mask.sub("#", l) for l in ls] if mask else ls
    rebuilt = []
    for cmd, exp in session(body):
        got, rc, err = run(cmd.replace("build/streamtp", "streamtp"))
        rebuilt += ([""] if rebuilt else []) + ("$ " + cmd).split("\n") + got
        if rc != status:
            fail(where, f"`{cmd}` exited with {rc}, not {status}: {err.strip()[:500]}")
        elif not matches(norm(exp), norm(got), tol):
            fail(where, f"`{cmd}` prints other lines:")
            print("\n".join(difflib.unified_diff(exp, got, "README", "now", lineterm="")))
        else:
            print(f"ok   {where}: $ {cmd}")
    return rebuilt


def commands(body):
    """The commands of a readme-run block: one a line, "\\" continues."""
    out, cur = [], ""
    for l in body:
        l = l[2:] if l.startswith("$ ") else l
        if l.rstrip().endswith("\\"):
            cur += l.rstrip()[:-1] + " "
            continue
        cur += l
        if cur.strip() and not cur.lstrip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def check_synopsis(where, body):
    """Each usage line "streamtp SUB ..." (indented lines continue it): every
    long option it shows is in `streamtp SUB --help`."""
    usages = []
    for l in body:
        if l.startswith("streamtp "):
            usages.append(l)
        elif usages and l.strip():
            usages[-1] += " " + l
    if not usages:
        fail(where, "a synopsis starts with `streamtp SUB`")
        return
    for text in usages:
        sub = text.split()[1]
        got, rc, err = run(f"streamtp {sub} --help")
        helptext = "\n".join(got) + err
        missing = [o for o in sorted(set(re.findall(r"--[a-z][a-z0-9-]*", text)))
                   if not re.search(re.escape(o) + r"(?![a-z0-9-])", helptext)]
        if rc != 0 or missing:
            fail(where, f"`streamtp {sub} --help` (exit {rc}) does not know {', '.join(missing)}")
        else:
            print(f"ok   {where}: synopsis of streamtp {sub}")


def check_paths(where, body):
    bad = [l.split()[0] for l in body if l.strip() and not l.startswith(" ")
           and not os.path.exists(os.path.join(scratch, l.split()[0]))]
    if bad:
        fail(where, f"no such paths in the tree: {', '.join(bad)}")
    else:
        print(f"ok   {where}: {len(body)} lines of layout")


def marked_lines():
    """Line numbers of every marker, checked for kind."""
    out = []
    for i, l in enumerate(lines):
        m = MARK.match(l.strip())
        if m:
            if m.group(1) not in KINDS:
                print(f"{NAME}:{i + 1}: unknown marker readme-{m.group(1)}")
                sys.exit(2)
            out.append(i)
    return out


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces
    to hyphens."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")


def anchors(path):
    """The anchors of the headings of the Markdown file PATH (outside code)."""
    out, fence = set(), False
    for l in open(path).read().split("\n"):
        if l.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", l):
            out.add(slug(l.lstrip("#")))
    return out


LINK = re.compile(r"\]\(([^)\s]+)\)")


def check_links():
    """Every relative link of the file reaches a file of the tree, and its
    anchor a heading there."""
    here, fence, bad, n = os.path.dirname(os.path.abspath(readme)), False, [], 0
    for i, l in enumerate(lines):
        if l.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in LINK.findall(l):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            n += 1
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(here, path)) if path else os.path.abspath(readme)
            if not os.path.exists(full):
                bad.append(f"{NAME}:{i + 1}: {target}: no such file")
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                bad.append(f"{NAME}:{i + 1}: {target}: no heading with that anchor")
    for b in bad:
        fail(b.split(": ")[0], b.split(": ", 1)[1])
    if not bad:
        print(f"ok   {NAME}: {n} relative links")


covered = set()
for i in marked_lines():
    m = MARK.match(lines[i].strip())
    kind, arg = m.group(1), (m.group(2) or "").strip()
    counts[kind] = counts.get(kind, 0) + 1
    where = f"{NAME}:{i + 1}"
    if kind in ("table", "numbers"):
        j, k = paragraph_after(i, table=kind == "table")
        got, rc, err = run(arg)
        if rc != 0:
            fail(where, f"`{arg}` exited with {rc}: {err.strip()[:500]}")
            continue
        if kind == "table":
            indent = re.match(r"\s*", lines[j]).group(0)
            want = [indent + l for l in got]
            if lines[j:k] != want:
                fail(where, f"the table is not the output of `{arg}`:")
                print("\n".join(difflib.unified_diff(lines[j:k], want, "README", "now", lineterm="")))
                if update:
                    new[j:k] = want  # same number of lines, or --update runs again
            else:
                print(f"ok   {where}: table of {k - j - 2} rows from `{arg}`")
        else:
            text = " ".join(" ".join(lines[j:k]).split())
            missing = [n for n in got if " ".join(n.split()) not in text]
            if missing:
                fail(where, f"the paragraph does not say {missing} (from `{arg}`)")
            else:
                print(f"ok   {where}: {len(got)} numbers of the paragraph from `{arg}`")
        continue
    blk = block_after(i)
    if blk is None:
        print(f"{where}: marker not followed by a code block")
        sys.exit(2)
    j, k, body, indent = blk
    covered.add(j - (0 if indent else 1))
    where = f"{NAME}:{j + 1}"
    if kind == "skip":
        reason = options(arg, ("reason",), where).get("reason", "")
        if not reason:
            print(f"{where}: readme-skip needs a reason")
            sys.exit(2)
        skipped.append(f"{where}: {reason}")
    elif kind == "file":
        want = open(f"{scratch}/{arg}").read().rstrip("\n").split("\n")
        if body != want:
            fail(where, f"the block is not {arg}:")
            print("\n".join(difflib.unified_diff(want, body, arg, "README", lineterm="")))
        else:
            print(f"ok   {where}: {arg}")
    elif kind == "example":
        rebuilt = check_example(where, options(arg, ("ignore", "mask", "status", "tol"), where), body)
        if update:
            rebuilt = [indent + l if l else l for l in rebuilt]
            if len(rebuilt) != k - j:
                new[j:k] = rebuilt
                open(readme, "w").write("\n".join(new))
                print("(--update changed the number of lines: run it again)")
                sys.exit(1)
            new[j:k] = rebuilt
    elif kind == "run":
        status = int(options(arg, ("status",), where).get("status", "0"))
        for cmd in commands(body):
            _, rc, err = run(cmd.replace("build/streamtp", "streamtp"))
            if rc != status:
                fail(where, f"`{cmd}` exited with {rc}, not {status}: {err.strip()[:500]}")
            else:
                print(f"ok   {where}: ran `{cmd}`")
    elif kind == "synopsis":
        check_synopsis(where, body)
    elif kind == "paths":
        check_paths(where, body)

for s in code_blocks():
    if s not in covered:
        fail(f"{NAME}:{s + 1}", "a code block without a readme-* marker (see scripts/readme_examples.py)")
check_links()
for s in skipped:
    print(f"skip {s}")
if update:
    open(readme, "w").write("\n".join(new))
summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
print(f"{NAME} markers: {summary}; {failures} failure(s)")
sys.exit(1 if failures else 0)
