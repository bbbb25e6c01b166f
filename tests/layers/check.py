#!/usr/bin/env python3
"""check.py: the floors of libstreamtp stay visible (docs/design.md, "Floors").

Fails (exit 1, one line per breach) when
  - a file includes a header of a higher floor, or of another domain of
    models/ (a family compiles into the engine, never into a sibling);
  - the command line (cli/) includes anything but the public headers and
    its own, or one of its own above its layer (CLI_LAYERS: run and cluster,
    then args, options, output, the commands' helpers, the commands), or
    its headers include one another in a cycle;
  - a public header includes a private one, or one of a higher floor;
  - a header of the library has no source file of its own name;
  - a string literal below the report floor names a command-line option
    ("raise --max-states"): the library's messages say which limit
    (stp_limit), the command line says which option raises it;
  - given the shared library: it exports a name that is not stp_, or an
    internal stp__ name.
Usage: check.py SOURCE_DIR [libstreamtp.so]
       check.py --self-test   (a small tree with one breach of each kind)
"""
import os
import re
import subprocess
import sys

FLOORS = {"base": 0, "solvers": 1, "engine": 2, "models": 3, "report": 4, "cli": 5}
# Public headers take the floor of what they declare.
PUBLIC = {"streamtp_base.h": 0, "streamtp_law.h": 1, "streamtp_chain.h": 2,
          "streamtp_graph.h": 2, "streamtp_distributed.h": 2, "streamtp_report.h": 4,
          "streamtp_plot.h": 4, "streamtp_explain_report.h": 4, "streamtp_gantt.h": 4,
          "streamtp.h": 4}  # streamtp.h: every public header, for programs (cli, tests)
PUBLIC_DEFAULT = 3
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# The layers of the command line (docs/design.md, "The command line"): a
# file of cli/ includes the headers of lower layers and its own.  run and
# cluster are siblings at the bottom (neither includes the other); a module
# not named here is a helper of the commands (gantt, rowfile, campaign,
# ...): helpers may include one another, though never in a cycle.
CLI_LAYERS = {"run": 0, "cluster": 0, "args": 1, "options": 2, "output": 3, "commands": 5}
CLI_HELPERS = 4
CLI_MODULE_OF = {"progress": "run", "main": "commands"}  # files of another module's header


def floor_of(path):
    top = path.split("/")[0]
    if top == "include":
        return PUBLIC.get(os.path.basename(path), PUBLIC_DEFAULT)
    return FLOORS.get(top)


def domain_of(path):
    parts = path.split("/")
    return parts[1] if parts[0] == "models" and len(parts) > 2 else None


def resolve(inc):
    """Repository path of a quoted include, or None for a system one."""
    if "/" in inc:
        return inc
    if inc.startswith("streamtp"):
        return "include/" + inc
    return None


def sources(root):
    for top in list(FLOORS) + ["include"]:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def check_includes(root, path, breaches):
    mine = floor_of(path)
    text = open(os.path.join(root, path), encoding="utf-8").read()
    for inc in INCLUDE.findall(text):
        target = resolve(inc)
        if target is None:
            continue
        if not os.path.exists(os.path.join(root, target)):
            breaches.append(f"{path}: includes \"{inc}\", which is not in the tree")
            continue
        theirs = floor_of(target)
        if path.startswith("include/") and not target.startswith("include/"):
            breaches.append(f"{path}: a public header includes the private \"{inc}\"")
        elif path.startswith("cli/") and not target.startswith(("include/", "cli/")):
            breaches.append(f"{path}: the command line includes the private header \"{inc}\"")
        elif theirs is None or theirs > mine:
            breaches.append(f"{path} (floor {mine}) includes \"{inc}\" (floor {theirs})")
        elif domain_of(path) and domain_of(target) and domain_of(path) != domain_of(target):
            breaches.append(f"{path}: the {domain_of(path)} domain includes \"{inc}\" of the "
                            f"{domain_of(target)} domain")


def cli_module(path):
    """The module of a file of cli/: its name without extension, cmd_*.c and
    main.c being the commands'."""
    name = os.path.splitext(os.path.basename(path))[0]
    return "commands" if name.startswith("cmd_") else CLI_MODULE_OF.get(name, name)


def cli_layer(module):
    return CLI_LAYERS.get(module, CLI_HELPERS)


def check_cli_layers(root, paths, breaches):
    """Each cli/ file includes headers of lower layers of the command line
    (or its own module's); the modules' includes form no cycle."""
    edges = {}
    for path in paths:
        if not path.startswith("cli/"):
            continue
        mine = cli_module(path)
        text = open(os.path.join(root, path), encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            if not inc.startswith("cli/") or not os.path.exists(os.path.join(root, inc)):
                continue
            theirs = cli_module(inc)
            if theirs == mine:
                continue
            edges.setdefault(mine, set()).add(theirs)
            lm, lt = cli_layer(mine), cli_layer(theirs)
            if lt > lm or (lt == lm and lm != CLI_HELPERS):
                breaches.append(f"{path} (cli layer {lm}, {mine}) includes \"{inc}\" "
                                f"(cli layer {lt}, {theirs})")
    seen, on_path = set(), []

    def visit(m):
        if m in on_path:
            cycle = on_path[on_path.index(m):] + [m]
            breaches.append("cli: the headers include one another in a cycle: " +
                            " -> ".join(cycle))
            return
        if m in seen:
            return
        seen.add(m)
        on_path.append(m)
        for t in sorted(edges.get(m, ())):
            visit(t)
        on_path.pop()

    for m in sorted(edges):
        visit(m)


def check_header_names(root, path, breaches):
    if path.endswith(".h") and not path.startswith(("include/", "cli/")):
        if not os.path.exists(os.path.join(root, path[:-2] + ".c")):
            breaches.append(f"{path}: no source file {os.path.basename(path)[:-2]}.c beside it")


STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
FLAG = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]+')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def check_flags(root, path, breaches):
    """Messages of the floors below report/ name no option of the CLI."""
    if floor_of(path) is None or floor_of(path) >= FLOORS["report"] or path.startswith("include/"):
        return
    text = COMMENT.sub(" ", open(os.path.join(root, path), encoding="utf-8").read())
    for lit in STRING.findall(text):
        m = FLAG.search(lit)
        if m:
            breaches.append(f"{path}: a message names the option {m.group(0)}: {lit[:60]}")


def check_exports(lib, breaches):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    # The linker's own markers, which it exports from a library that links
    # MPI and PETSc (a build with -DSTP_PETSC=ON): not names of ours.
    linker = {"__bss_start", "_edata", "_end"}
    for line in out.splitlines():
        name = line.split()[-1]
        if name in linker:
            continue
        if not name.startswith("stp_") or name.startswith("stp__"):
            breaches.append(f"{lib}: exports {name}")


SELF_TEST = {
    "base/a.h": '#include "streamtp_base.h"\n',
    "base/a.c": '#include "base/a.h"\n#include "engine/g.h"\n',
    "engine/g.h": '#include "base/a.h"\n',
    "engine/g.c": '#include "engine/g.h"\n#include "streamtp.h"\n',
    "engine/lonely.h": "",
    "solvers/s.c": '/* "--ok in a comment" */ const char *m = "raise --max-states";\n',
    "models/one/m.h": "",
    "models/one/m.c": '#include "models/two/n.h"\n',
    "models/two/n.h": "",
    "models/two/n.c": "",
    "cli/main.c": '#include "engine/g.h"\n#include "streamtp.h"\n#include "cli/run.h"\n',
    "cli/run.h": '#include "streamtp.h"\n',
    "cli/run.c": '#include "cli/run.h"\n#include "cli/args.h"\n',
    "cli/progress.c": '#include "cli/run.h"\n',
    "cli/cluster.c": '#include "cli/run.h"\n',
    "cli/args.h": "",
    "cli/gantt.h": '#include "cli/args.h"\n#include "cli/rowfile.h"\n',
    "cli/rowfile.h": '#include "cli/gantt.h"\n',
    "include/streamtp.h": '#include "base/a.h"\n',
    "include/streamtp_base.h": "",
}
SELF_TEST_EXPECT = [
    'base/a.c (floor 0) includes "engine/g.h" (floor 2)',
    'engine/g.c (floor 2) includes "streamtp.h" (floor 4)',
    "engine/lonely.h: no source file lonely.c beside it",
    'solvers/s.c: a message names the option --max-states: "raise --max-states"',
    'models/one/m.c: the one domain includes "models/two/n.h" of the two domain',
    'cli/main.c: the command line includes the private header "engine/g.h"',
    'cli/run.c (cli layer 0, run) includes "cli/args.h" (cli layer 1, args)',
    'cli/cluster.c (cli layer 0, cluster) includes "cli/run.h" (cli layer 0, run)',
    "cli: the headers include one another in a cycle: gantt -> rowfile -> gantt",
    'include/streamtp.h: a public header includes the private "base/a.h"',
]


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        breaches = []
        for path in sources(root):
            check_includes(root, path, breaches)
            check_header_names(root, path, breaches)
            check_flags(root, path, breaches)
        check_cli_layers(root, list(sources(root)), breaches)
    if sorted(breaches) != sorted(SELF_TEST_EXPECT):
        print("self-test: expected", *SELF_TEST_EXPECT, "got", *breaches, sep="\n  ")
        return 1
    print(f"self-test: the {len(breaches)} planted breaches are found, and nothing else")
    return 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    root = sys.argv[1]
    breaches = []
    for path in sources(root):
        check_includes(root, path, breaches)
        check_header_names(root, path, breaches)
        check_flags(root, path, breaches)
    check_cli_layers(root, list(sources(root)), breaches)
    if len(sys.argv) > 2:
        check_exports(sys.argv[2], breaches)
    for b in breaches:
        print(b)
    print(f"layers: {len(breaches)} breach(es)")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
