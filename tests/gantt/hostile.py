#!/usr/bin/env python3
"""hostile.py: pictures stay well-formed whatever the names hold (issue 34,
item 7).  Names that the name rules allow but XML or DOT do not take as
they are (U+FFFE, U+FFFF, DEL, & < > " ' \\, a 4-byte character), and
default names made from file names holding bytes that are not UTF-8, a
control character and a line break, are drawn by `teg --gantt`, `graph
--gantt`, `teg --dot` and `graph --dot`.  Each SVG must parse with an XML
parser (xml.etree) and render with rsvg-convert; each DOT file must go
through Graphviz (`dot -Tsvg`, no warning) into an SVG that parses; and the
names read back from the SVG are the text the escaping promises
(docs/format.md, "Names in pictures"): what XML takes as itself, the rest
as \\xNN or \\uNNNN, as the JSON of the same names.
Usage: hostile.py PATH/TO/streamtp"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

BIN = os.path.realpath(sys.argv[1])
SVG = "{http://www.w3.org/2000/svg}"
failures = 0
tried = 0


def check(what, ok, detail=""):
    global failures, tried
    tried += 1
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
    failures += 0 if ok else 1


# The names, and the text each must read back as from the SVG.
NAMES = {
    "mark": ("a<b>&\"c'\\", "a<b>&\"c'\\"),
    "fffe": ("x\ufffey", "x\\ufffey"),
    "ffff": ("\uffff", "\\uffff"),
    "del": ("d\x7fe", "d\\x7fe"),
    "wide": ("\u00e9\U0001f600", "\u00e9\U0001f600"),
}


def run(args, cwd):
    return subprocess.run([BIN] + args, capture_output=True, cwd=cwd)


def svg_ok(what, data, want_names=()):
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        check(f"{what}: the SVG parses as XML", False, str(e))
        return
    check(f"{what}: the SVG parses as XML", root.tag == SVG + "svg", root.tag)
    if want_names:
        got = {r.get("data-transition") for r in root.iter(SVG + "rect") if r.get("data-transition")}
        missing = [w for w in want_names if w not in got]
        check(f"{what}: the names read back as promised", not missing, f"{missing} not in {got}")
    if shutil.which("rsvg-convert"):
        with tempfile.TemporaryDirectory() as d:
            svg, png = os.path.join(d, "c.svg"), os.path.join(d, "c.png")
            with open(svg, "wb") as f:
                f.write(data)
            p = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True)
            check(f"{what}: rsvg-convert renders it",
                  p.returncode == 0 and os.path.getsize(png) > 0, p.stderr.decode(errors="replace"))
    else:
        print(f"skip {what}: rsvg-convert is not installed (librsvg2-bin)")


def dot_ok(what, data):
    if not shutil.which("dot"):
        print(f"skip {what}: Graphviz is not installed")
        return
    p = subprocess.run(["dot", "-Tsvg"], input=data, capture_output=True)
    check(f"{what}: Graphviz reads it without a warning", p.returncode == 0 and not p.stderr,
          p.stderr.decode(errors="replace"))
    if p.returncode == 0:
        svg_ok(f"{what} (Graphviz's SVG)", p.stdout)


def graph_file(name=True):
    g = {"transitions": [], "places": []}
    if name:
        g["name"] = "g" + NAMES["mark"][0] + NAMES["fffe"][0]
    keys = list(NAMES)
    for k, key in enumerate(keys):
        g["transitions"].append({"name": NAMES[key][0], "time": 1 + k, "resource": "r" + NAMES[key][0]})
    for k in range(len(keys)):
        g["places"].append({"from": NAMES[keys[k]][0], "to": NAMES[keys[(k + 1) % len(keys)]][0],
                            "tokens": 1 if k + 1 == len(keys) else 0})
    return g


def mapping_file(name=True):
    m = {"stages": [{"name": NAMES["mark"][0], "work": 3, "output": 2},
                    {"name": NAMES["ffff"][0], "work": 2}],
         "processors": [{"name": NAMES["fffe"][0], "speed": 1}, {"name": NAMES["del"][0], "speed": 2},
                        {"name": NAMES["wide"][0], "speed": 1}],
         "bandwidth": 1,
         "mapping": [[NAMES["fffe"][0]], [NAMES["del"][0], NAMES["wide"][0]]]}
    if name:
        m["name"] = NAMES["mark"][0] + NAMES["ffff"][0]
    return m


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # file names as default names: not UTF-8, a control character, a line break
        weird = os.fsencode(tmp) + b"/m\xff\x01\n\xef\xbf\xbe"
        files = {
            "graph": os.path.join(tmp, "g.json"),
            "mapping": os.path.join(tmp, "m.json"),
            "graph (default name from a hostile file name)": weird + b"-g.json",
            "mapping (default name from a hostile file name)": weird + b"-m.json",
        }
        for what, path in files.items():
            doc = graph_file("default" not in what) if what.startswith("graph") else \
                mapping_file("default" not in what)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False)
        for what, path in files.items():
            arg = os.fsdecode(path) if isinstance(path, bytes) else path
            cmd = "graph" if what.startswith("graph") else "teg"
            want = [v[1] for v in NAMES.values()] if cmd == "graph" else ()
            p = run([cmd, arg, "--gantt"], tmp)
            check(f"{cmd} --gantt of the {what}: exit 0", p.returncode == 0, p.stderr.decode(errors="replace"))
            if p.returncode == 0:
                svg_ok(f"{cmd} --gantt of the {what}", p.stdout, want)
            p = run([cmd, arg, "--dot"], tmp)
            check(f"{cmd} --dot of the {what}: exit 0", p.returncode == 0, p.stderr.decode(errors="replace"))
            if p.returncode == 0:
                dot_ok(f"{cmd} --dot of the {what}", p.stdout)
    print(f"{tried} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
