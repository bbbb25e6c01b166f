#!/usr/bin/env python3
"""check.py: `streamtp teg --dot` as Graphviz lays it out (`dot -Tjson`):
- every place is its own edge: the edges with an id "pK" are exactly the
  places counted by `streamtp teg` (K = 0 .. places-1, each once), parallel
  places between the same two transitions included;
- parallel places are drawn as distinct splines;
- rows in order: within each column, row j is drawn above row j+1;
- the blue edges form one cycle whose ratio (sum of the firing times of its
  transitions over its tokens, read from the drawing) is R times the period
  `streamtp eval --json` gives;
- a large graph (Strict, `generate --stages 10 --processors 20`, 840
  places) asks for straight edges (curved ones took minutes in Graphviz)
  and keeps every property above but distinct splines for parallel places.
Usage: check.py STREAMTP"""
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

BIN = sys.argv[1]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CASES = [(f, m) for f in ("example-a", "no-replication", "homogeneous-2x3",
                          "strict-no-critical") for m in ("overlap", "strict")]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


TMP = tempfile.mkdtemp()
run(BIN, "generate", "--stages", "10", "--processors", "20", "--count", "26", "--seed", "1",
    "-o", TMP)
BIG = f"{TMP}/map-00026.json"  # 30 paths: 570 transitions, 840 places (Strict)
CASES.append((BIG, "strict"))

parallel_seen = 0
for name, model in CASES:
    path = name if name.startswith("/") else f"{ROOT}/examples/{name}.json"
    places = int(re.search(r"places\s+(\d+)", run(BIN, "teg", path, "--model", model)).group(1))
    dot = run(BIN, "teg", path, "--model", model, "--dot")
    straight = "splines=line;" in dot
    if straight != (places > 300):
        fail(f"{name} {model}: {places} places, splines=line {straight} (expected beyond 300)")
    out = subprocess.run(["dot", "-Tjson"], input=dot, capture_output=True, text=True)
    if out.returncode != 0 or out.stderr.strip():
        fail(f"{name} {model}: dot -Tjson says: {out.stderr.strip()[:300]}")
    layout = json.loads(out.stdout)
    nodes = layout["objects"]
    edges = [e for e in layout.get("edges", []) if e.get("style") != "invis"]
    ids = Counter(e.get("id") for e in edges)
    want = Counter(f"p{k}" for k in range(places))
    if ids != want:
        fail(f"{name} {model}: {len(edges)} drawn edges with ids {sorted(ids)[:5]}..., "
             f"{places} places")
    pairs = Counter((e["tail"], e["head"]) for e in edges)
    parallel_seen += sum(c - 1 for c in pairs.values() if c > 1)
    # Parallel places are drawn apart: distinct splines.
    drawn = Counter((e["tail"], e["head"], e.get("pos")) for e in edges)
    if not straight and max(drawn.values()) > 1:
        fail(f"{name} {model}: two parallel places share one drawn spline")
    # Rows in order within each column (y grows upwards in Graphviz).
    pos = {}
    for n in nodes:
        row, col = map(int, re.fullmatch(r"t(\d+)_(\d+)", n["name"]).groups())
        pos[(row, col)] = float(n["pos"].split(",")[1])
    for (row, col), y in pos.items():
        if (row + 1, col) in pos and not pos[(row + 1, col)] < y:
            fail(f"{name} {model}: row {row + 1} is not below row {row} in column {col}")
    # The blue cycle and its ratio.
    blue = [e for e in edges if e.get("color") == "blue"]
    succ = {e["tail"]: e for e in blue}
    if not blue or len(succ) != len(blue) or {e["head"] for e in blue} != set(succ):
        fail(f"{name} {model}: the blue edges do not form one cycle")
    u, seen, time, tokens = blue[0]["tail"], 0, 0.0, 0
    while True:
        e = succ[u]
        time += float(re.search(r"time (\S+)", nodes[u]["tooltip"]).group(1))
        tokens += int(e.get("label") or 0)
        seen += 1
        u = e["head"]
        if u == blue[0]["tail"]:
            break
    if seen != len(blue):
        fail(f"{name} {model}: the blue edges form more than one cycle")
    ev = json.loads(run(BIN, "eval", path, "--model", model, "--exp-method", "none", "--json"))
    ratio = ev["paths"] * ev["deterministic"]["period"]
    if abs(time / tokens - ratio) > 1e-9 * ratio:
        fail(f"{name} {model}: blue cycle ratio {time / tokens}, R x period {ratio}")
    print(f"ok   {os.path.basename(name)} {model}: {places} places = {len(edges)} edges, rows in order, "
          f"critical cycle of {seen} places, ratio {ratio:.10g}")
if parallel_seen == 0:
    fail("no case had parallel places: the first check proved nothing")
print(f"({parallel_seen} parallel places kept as distinct edges)")
