"""check.py: the Gantt charts (--gantt of teg, graph, reduce, redistribute,
bcast) render in a real renderer and show the right schedule.

For each chart: rsvg-convert (librsvg, Debian's librsvg2-bin) renders it to
PNG; the bars are read back from the SVG (each carries its transition,
firing, start and end) and checked against what is computed here, apart
from the drawing code:
  - the critical bars are those of the critical cycle or path that
    `streamtp graph --json` reports (Howard / longest path), every firing
    of them, and no other;
  - every precedence of the event graph (its places, read from the graph
    file; the single-server order) holds between the drawn firings, the
    critical cycle's firings follow each other without a gap, and a
    transition fires once per period (1 / throughput x outputs);
  - an activity DAG's bars start at their earliest dates, computed here by
    longest paths over the graph file;
  - a simulated run's red bars form one gap-free chain that ends at the
    last completion drawn;
  - in the rendered image, each bar is painted in its data set's colour
    and the critical ones (only they) have a red outline;
  - the rows of a mapping are its ports and processors, computed here from
    the mapping file (Overlap: in port, computations, out port of each
    processor, in stage then team order; Strict: one row per processor),
    every bar lies in its row and inside the drawn area (never cut), the
    data set of a bar is k R + j (path j, firing k), and the legend and the
    time unit are there.
The PNG is decoded here (zlib), so the check needs no imaging library.
Usage: check.py PATH/TO/streamtp   (run from anywhere; uses the repository's
examples)."""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

BIN = os.path.realpath(sys.argv[1])
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SVG = "{http://www.w3.org/2000/svg}"
TOL = 1e-9
failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + str(detail)))
    failures += not ok


def run(*args):
    p = subprocess.run([BIN, *args], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"streamtp {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def close(a, b, scale=1.0):
    return abs(a - b) <= TOL * max(abs(a), abs(b), scale)


# ---- PNG (8-bit RGB or RGBA, not interlaced: what rsvg-convert writes) ----------
def png_pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            bpp = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


# ---- charts -------------------------------------------------------------------------
class Chart:
    def __init__(self, svg_text):
        self.root = ET.fromstring(svg_text)
        self.width = float(self.root.get("width"))
        self.bars = []
        for r in self.root.iter(SVG + "rect"):
            if "firing" not in (r.get("class") or "").split():
                continue
            self.bars.append({"t": r.get("data-transition"), "k": int(r.get("data-firing")),
                              "d": int(r.get("data-dataset")), "row": r.get("data-row"),
                              "start": float(r.get("data-start")),
                              "end": float(r.get("data-end")),
                              "critical": "critical" in r.get("class").split(),
                              "x": float(r.get("x")), "y": float(r.get("y")),
                              "w": float(r.get("width")), "h": float(r.get("height")),
                              "fill": r.get("fill")})
        rows = [t for t in self.root.iter(SVG + "text") if t.get("class") == "row"]
        self.labels = [t.text for t in rows]
        self.label_y = {t.text: float(t.get("y")) for t in rows}
        plots = [r for r in self.root.iter(SVG + "rect") if r.get("class") == "plot"]
        self.plot = plots[0] if len(plots) == 1 else None
        self.legend = [g for g in self.root.iter(SVG + "g") if g.get("class") == "legend"]
        self.texts = ["".join(t.itertext()) for t in self.root.iter(SVG + "text")]

    def firings(self):
        """One bar per firing (a mapping's transfer is drawn in two rows)."""
        return list({(b["t"], b["k"]): b for b in self.bars}.values())


def render(name, svg_text, tmp):
    svg, png = os.path.join(tmp, name + ".svg"), os.path.join(tmp, name + ".png")
    open(svg, "w").write(svg_text)
    p = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True, text=True)
    check(f"{name}: rsvg-convert renders it", p.returncode == 0 and os.path.getsize(png) > 0,
          p.stderr)
    return png_pixels(png)


def hex_rgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


def colours_match(name, chart, image):
    """Inside each bar (left of its label, inside its outline) the bar's
    fill; on the outline of a critical bar red, on the others not."""
    w, h, bpp, rows = image
    scale = w / chart.width
    bad = []
    for b in chart.bars:
        if b["w"] * scale < 8:
            continue  # a sliver: mostly outline
        y = int((b["y"] + b["h"] / 2) * scale)
        x_in, x_edge = int((b["x"] + 3.5) * scale), int((b["x"] + 0.3) * scale)
        fill = rows[y][x_in * bpp:x_in * bpp + 3]
        r, g, bl = rows[y][x_edge * bpp:x_edge * bpp + 3]
        red = r > 180 and g < 90 and bl < 90
        want = hex_rgb(b["fill"])
        if any(abs(a - c) > 24 for a, c in zip(fill, want)) or red != b["critical"]:
            bad.append((b["t"], b["k"], b["row"], tuple(fill), want, (r, g, bl)))
    check(f"{name}: in the image, bars have their data set's colour and the critical ones "
          "(only they) a red outline", not bad, bad[:5])


def geometry_holds(name, chart, unit="units of the file"):
    """Every bar inside the drawn area, in its row; the legend and the unit."""
    p = chart.plot
    check(f"{name}: one drawn area", p is not None)
    if p is None:
        return
    x0, x1 = float(p.get("x")), float(p.get("x")) + float(p.get("width"))
    t0, t1 = float(p.get("data-t0")), float(p.get("data-t1"))
    out = [(b["t"], b["k"]) for b in chart.bars
           if b["x"] < x0 - 1e-6 or b["x"] + b["w"] > x1 + 1e-6
           or b["start"] < t0 - TOL * max(1, abs(t0)) or b["end"] > t1 + TOL * max(1, abs(t1))]
    check(f"{name}: every bar lies inside the drawn area (none cut)", not out, out[:5])
    span = (x1 - x0) / (t1 - t0)
    off = [(b["t"], b["k"]) for b in chart.bars if b["w"] > 1.01 and
           abs(b["x"] - (x0 + (b["start"] - t0) * span)) > 0.02]
    check(f"{name}: every bar starts at its data-start on the axis", not off, off[:5])
    misplaced = [(b["t"], b["row"]) for b in chart.bars
                 if b["row"] not in chart.label_y or abs(chart.label_y[b["row"]] - b["y"] - 11) > 1e-6]
    check(f"{name}: every bar is in the row it names", not misplaced, misplaced[:5])
    check(f"{name}: a legend says what red means", len(chart.legend) == 1 and any(
        "red" in "".join(g.itertext()) for g in chart.legend))
    check(f"{name}: the axis says its unit", f"time ({unit})" in chart.texts,
          [t for t in chart.texts if t.startswith("time")])


def graph_of(path):
    g = json.load(open(os.path.join(ROOT, path)))
    names = [t["name"] for t in g["transitions"]]
    return g, names


def precedences_hold(name, chart, g, lam):
    """Places and the single-server order between drawn firings; one firing
    per period."""
    at = {(b["t"], b["k"]): b for b in chart.bars}
    bad = []
    for p in g.get("places", []):
        m = p.get("tokens", 0)
        for (t, k), b in at.items():
            u = at.get((p["from"], k - m)) if t == p["to"] else None
            if u and b["start"] < u["end"] - TOL * max(1, u["end"]):
                bad.append((p, k))
    for (t, k), b in at.items():
        prev = at.get((t, k - 1))
        if prev and b["start"] < prev["end"] - TOL * max(1, b["start"]):
            bad.append(("single server", t, k))
        if prev and lam and not close(b["start"] - prev["start"], lam):
            bad.append(("period", t, k, b["start"] - prev["start"], lam))
    check(f"{name}: every place, the single-server order and the period hold", not bad, bad[:5])


def mapping_rows(path, model):
    """The rows of a mapping's chart, from its file: per processor in stage
    then team order, Overlap: "P in" (not in the first stage), "P", "P out"
    (not in the last); Strict: "P"."""
    m = json.load(open(os.path.join(ROOT, path)))
    n, rows = len(m["stages"]), []
    for i, team in enumerate(m["mapping"]):
        for p in team:
            rows += ([p + " in"] if model == "overlap" and i > 0 else []) + [p] + \
                    ([p + " out"] if model == "overlap" and i < n - 1 else [])
    return rows, n


NAME = re.compile(r"^r(\d+):([^@:]+)(?:@(.+)|:(.+)->(.+))$")


def mapping_checks(name, chart, mapping, model, ntransitions):
    """Rows are the ports and processors; each bar in its resources' rows;
    data set k R + j."""
    want, n = mapping_rows(mapping, model)
    if mapping.endswith("example-a.json"):  # written out once, as a reader checks it
        first = ["P0", "P0 out", "P1 in", "P1", "P1 out"] if model == "overlap" else \
            ["P0", "P1", "P2", "P3", "P4", "P5", "P6"]
        check(f"{name}: Example A's first rows are {', '.join(first)}",
              chart.labels[:len(first)] == first and want[:len(first)] == first, chart.labels)
    check(f"{name}: the rows are the mapping's {'ports and processors' if model == 'overlap' else 'processors'}"
          " in stage then team order", chart.labels == want, (chart.labels, want))
    paths = ntransitions // (2 * n - 1)
    rows_of, bad_d = {}, []
    for b in chart.bars:
        j, _, at, src, dst = NAME.match(b["t"]).groups()
        rows_of.setdefault(b["t"], set()).add(b["row"])
        if b["d"] != b["k"] * paths + int(j):
            bad_d.append((b["t"], b["k"], b["d"]))
    bad_rows = []
    for t, got in rows_of.items():
        j, _, at, src, dst = NAME.match(t).groups()
        exp = {at} if at else ({src + " out", dst + " in"} if model == "overlap" else {src, dst})
        if got != exp:
            bad_rows.append((t, got, exp))
    check(f"{name}: a computation in its processor's row, a transfer in its sender's and "
          "receiver's", not bad_rows, bad_rows[:5])
    check(f"{name}: the data set of firing k of path j is k R + j", not bad_d, bad_d[:5])
    fills = {}
    for b in chart.bars:
        fills.setdefault(b["d"], set()).add(b["fill"])
    same = all(len(f) == 1 for f in fills.values())
    ds = sorted(fills)
    apart = all(fills[a] != fills[b] for a, b in zip(ds, ds[1:]))
    check(f"{name}: one colour per data set, consecutive data sets apart", same and apart, fills)
    labels = [t for t in chart.root.iter(SVG + "text") if t.get("class") == "dataset"]
    check(f"{name}: data set numbers written in the bars", len(labels) > len(chart.bars) / 3,
          len(labels))
    check(f"{name}: the legend names the data sets", any(
        "data set" in "".join(g.itertext()) for g in chart.legend))


def teg_case(name, args, graph_path, tmp, mapping=None, model=None, periods=3):
    """A timed event graph with constant times: Howard's cycle in red."""
    chart = Chart(run(*args))
    image = render(name, run(*args), tmp)
    g, _ = graph_of(graph_path)
    res = json.loads(run("graph", "--json", graph_path))
    cycle = set(res["deterministic"]["critical_cycle"])
    outputs = max(1, sum(1 for t in g["transitions"] if t.get("output")))
    lam = outputs / res["deterministic"]["throughput"]
    red = {b["t"] for b in chart.bars if b["critical"]}
    drawn = {b["t"] for b in chart.bars}
    check(f"{name}: the red bars are the critical cycle's transitions", red == cycle & drawn
          and cycle <= drawn, (sorted(red), sorted(cycle)))
    precedences_hold(name, chart, g, lam)
    # the periodic steady state: every transition fires once in each period
    # drawn (the firings that start in the window), in each of its rows
    count = {}
    for b in chart.bars:
        count[(b["t"], b["row"])] = count.get((b["t"], b["row"]), 0) + 1
    odd = {t: n for t, n in count.items() if n != periods}
    check(f"{name}: every transition fires once per period drawn", not odd and
          {t for t, _ in count} == {t["name"] for t in g["transitions"] if t["time"] > 0},
          list(odd.items())[:5])
    # the critical cycle's firings follow each other without a gap
    crit = sorted((b for b in chart.firings() if b["critical"]), key=lambda b: b["start"])
    gaps = [(a["t"], b["t"]) for a, b in zip(crit, crit[1:])
            if not close(b["start"], a["end"], lam)]
    check(f"{name}: the critical firings run back to back", not gaps, gaps[:5])
    if mapping:
        mapping_checks(name, chart, mapping, model, len(g["transitions"]))
    else:  # a graph file: one row per resource, named after it
        res_of = {t["name"]: t.get("resource", t["name"]) for t in g["transitions"]}
        bad = [(b["t"], b["row"]) for b in chart.bars if b["row"] != res_of[b["t"]]]
        check(f"{name}: one row per resource", not bad and
              len(chart.labels) == len(set(res_of.values())), bad[:5])
    geometry_holds(name, chart)
    colours_match(name, chart, image)


def longest_paths(g):
    """Earliest starts of an activity DAG, by longest paths (here, apart from
    the engine)."""
    time = {t["name"]: t["time"] for t in g["transitions"]}
    preds = {n: [] for n in time}
    for p in g.get("places", []):
        preds[p["to"]].append(p["from"])
    start = {}

    def s(n):
        if n not in start:
            start[n] = max((s(u) + time[u] for u in preds[n]), default=0.0)
        return start[n]
    for n in time:
        s(n)
    return start, time


def dag_case(name, args, tmp, graph_path=None, makespan=None, unit="units of the file"):
    """An activity DAG with constant times: the critical path in red."""
    text = run(*args)
    chart, image = Chart(text), render(name, text, tmp)
    crit = sorted((b for b in chart.bars if b["critical"]), key=lambda b: b["start"])
    end = max(b["end"] for b in chart.bars)
    chain = crit and close(crit[0]["start"], 0, end) and close(crit[-1]["end"], end) and all(
        close(b["start"], a["end"], end) for a, b in zip(crit, crit[1:]))
    check(f"{name}: the red bars are a gap-free path from 0 to the makespan", chain,
          [(b["t"], b["start"], b["end"]) for b in crit])
    if makespan is not None:
        check(f"{name}: the chart's makespan is the command's", close(end, makespan), (end, makespan))
    if graph_path:
        g, _ = graph_of(graph_path)
        start, time = longest_paths(g)
        bad = [b["t"] for b in chart.bars if not close(b["start"], start[b["t"]], end)]
        check(f"{name}: every bar starts at its earliest date", not bad, bad[:5])
        path = json.loads(run("graph", "--json", graph_path))["deterministic"]["critical_path"]
        want = {n for n in path if time[n] > 0}
        check(f"{name}: the red bars are the critical path of `graph --json`",
              {b["t"] for b in crit} == want, ([b["t"] for b in crit], path))
    geometry_holds(name, chart, unit)
    colours_match(name, chart, image)


def trace_case(name, args, tmp):
    """One simulated run: the red bars are one chain ending at the last
    completion drawn; the same seed draws the same chart."""
    text = run(*args)
    chart, image = Chart(text), render(name, text, tmp)
    crit = sorted((b for b in chart.firings() if b["critical"]), key=lambda b: b["start"])
    chain = len(crit) >= 2 and all(b["start"] == a["end"] for a, b in zip(crit, crit[1:]))
    check(f"{name}: the red bars form one gap-free chain", chain,
          [(b["t"], b["start"], b["end"]) for b in crit][:8])
    check(f"{name}: the same seed draws the same chart", run(*args) == text)
    geometry_holds(name, chart)
    colours_match(name, chart, image)
    return crit


with tempfile.TemporaryDirectory() as tmp:
    # mappings: the full event graph, exported to check against
    for model in ("overlap", "strict"):
        gpath = os.path.join(tmp, f"a-{model}.json")
        open(gpath, "w").write(run("teg", "--graph-json", "--model", model,
                                   "examples/example-a.json"))
        teg_case(f"teg example-a {model}", ["teg", "--gantt", "--model", model,
                                            "examples/example-a.json"], gpath, tmp,
                 "examples/example-a.json", model)
    teg_case("teg example-a strict, 2 periods", ["teg", "--gantt", "--model", "strict",
             "--periods", "2", "examples/example-a.json"], gpath, tmp,
             "examples/example-a.json", "strict", periods=2)
    for f in ("buffer", "barrier"):
        teg_case(f"graph {f}", ["graph", "--gantt", f"examples/graphs/{f}.json"],
                 f"examples/graphs/{f}.json", tmp)
    dag_case("graph fork-join", ["graph", "--gantt", "examples/graphs/fork-join.json"], tmp,
             "examples/graphs/fork-join.json")
    rpath = os.path.join(tmp, "r12.json")
    open(rpath, "w").write(run("reduce", "--n", "12", "--d", "1", "--c", "2", "--tree",
                               "fibonacci", "--graph-json"))
    dag_case("reduce n=12", ["reduce", "--n", "12", "--d", "1", "--c", "2", "--tree",
                             "fibonacci", "--gantt"], tmp, rpath,
             json.loads(run("reduce", "--n", "12", "--d", "1", "--c", "2", "--tree",
                            "fibonacci", "--json"))["deterministic"]["makespan"], unit="units of d and c")
    rd = ["redistribute", "--P", "15", "--Q", "6", "--r", "2", "--s", "3", "--strategy",
          "optimal", "--alpha", "0.5"]
    dag_case("redistribute optimal", rd + ["--gantt"], tmp,
             makespan=json.loads(run(*rd, "--json"))["deterministic"]["makespan"],
             unit="units of alpha and beta")
    bc = ["bcast", "examples/bcast/grid88.json", "--size", "4194304", "--inter", "ecef"]
    dag_case("bcast ecef", bc + ["--gantt"], tmp,
             makespan=json.loads(run(*bc, "--json"))["deterministic"]["makespan"])
    a = trace_case("teg example-a, one gamma run",
                   ["teg", "--gantt", "--law", "gamma:cv=0.5", "examples/example-a.json"], tmp)
    b = trace_case("graph fork-join, one exp run",
                   ["graph", "--gantt", "--law", "exp", "--seed", "2",
                    "examples/graphs/fork-join.json"], tmp)
    other = run("teg", "--gantt", "--law", "gamma:cv=0.5", "--seed", "2", "examples/example-a.json")
    check("another seed draws another run",
          other != run("teg", "--gantt", "--law", "gamma:cv=0.5", "examples/example-a.json"))

# The pictures of docs/guide/gantt.md are what the commands draw now (bar
# for bar; the last digits of coordinates may differ between machines).
for img, args in [("docs/img/example-a-gantt.svg", ["teg", "--gantt", "examples/example-a.json"]),
                  ("docs/img/grid88-ecef-gantt.svg",
                   ["bcast", "examples/bcast/grid88.json", "--size", "4194304", "--inter", "ecef",
                    "--gantt"])]:
    key = lambda c: sorted((b["t"], b["k"], b["critical"]) for b in c.bars)
    times = lambda c: sorted((b["t"], b["k"], b["start"], b["end"]) for b in c.bars)
    old, new = Chart(open(os.path.join(ROOT, img)).read()), Chart(run(*args))
    same = key(old) == key(new) and all(close(a[2], b[2]) and close(a[3], b[3])
                                        for a, b in zip(times(old), times(new)))
    check(f"{img} is what `streamtp {' '.join(args)}` draws", same and old.labels == new.labels,
          "regenerate it with that command")

print(f"{'all' if not failures else failures} Gantt check(s) {'passed' if not failures else 'FAILED'}")
sys.exit(1 if failures else 0)
