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
  - in the rendered image, the pixel at the middle of each bar has the
    bar's colour: red for the critical ones, blue for the others.
The PNG is decoded here (zlib), so the check needs no imaging library.
Usage: check.py PATH/TO/streamtp   (run from anywhere; uses the repository's
examples)."""
import json
import os
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
                              "start": float(r.get("data-start")),
                              "end": float(r.get("data-end")),
                              "critical": "critical" in r.get("class").split(),
                              "x": float(r.get("x")), "y": float(r.get("y")),
                              "w": float(r.get("width")), "h": float(r.get("height")),
                              "fill": r.get("fill")})
        self.labels = [t.text for t in self.root.iter(SVG + "text") if t.get("class") == "row"]


def render(name, svg_text, tmp):
    svg, png = os.path.join(tmp, name + ".svg"), os.path.join(tmp, name + ".png")
    open(svg, "w").write(svg_text)
    p = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True, text=True)
    check(f"{name}: rsvg-convert renders it", p.returncode == 0 and os.path.getsize(png) > 0,
          p.stderr)
    return png_pixels(png)


def colours_match(name, chart, image):
    w, h, bpp, rows = image
    scale = w / chart.width
    bad = []
    for b in chart.bars:
        if b["w"] * scale < 3:
            continue  # a sliver: its middle pixel is mostly edge
        x, y = int((b["x"] + b["w"] / 2) * scale), int((b["y"] + b["h"] / 2) * scale)
        r, g, bl = rows[y][x * bpp:x * bpp + 3]
        red = r > 180 and g < 90 and bl < 90
        blue = bl > r + 40
        if (b["critical"] and not red) or (not b["critical"] and not blue):
            bad.append((b["t"], b["k"], (r, g, bl)))
    check(f"{name}: in the image, the critical bars are red and only they", not bad, bad[:5])


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


def teg_case(name, args, graph_path, tmp):
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
    # the periodic steady state: every transition fires in each of the 3
    # periods drawn (3 bars, or 4 with the two ends cut)
    count = {t["name"]: 0 for t in g["transitions"]}
    for b in chart.bars:
        count[b["t"]] += 1
    odd = {t: n for t, n in count.items() if n not in (3, 4)}
    check(f"{name}: every transition fires once per period drawn", not odd, list(odd.items())[:5])
    # the critical cycle's firings follow each other without a gap
    crit = sorted((b for b in chart.bars if b["critical"]), key=lambda b: b["start"])
    gaps = [(a["t"], b["t"]) for a, b in zip(crit, crit[1:])
            if not close(b["start"], a["end"], lam)]
    check(f"{name}: the critical firings run back to back", not gaps, gaps[:5])
    # rows: one per resource of the graph file
    res_of = {t["name"]: t.get("resource", t["name"]) for t in g["transitions"]}
    rows = {}
    for b in chart.bars:
        rows.setdefault(b["y"], set()).add(res_of[b["t"]])
    check(f"{name}: one row per resource", all(len(v) == 1 for v in rows.values()) and
          len(rows) == len({res_of[b['t']] for b in chart.bars}), rows)
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


def dag_case(name, args, tmp, graph_path=None, makespan=None):
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
    colours_match(name, chart, image)


def trace_case(name, args, tmp):
    """One simulated run: the red bars are one chain ending at the last
    completion drawn; the same seed draws the same chart."""
    text = run(*args)
    chart, image = Chart(text), render(name, text, tmp)
    crit = sorted((b for b in chart.bars if b["critical"]), key=lambda b: b["start"])
    chain = len(crit) >= 2 and all(b["start"] == a["end"] for a, b in zip(crit, crit[1:]))
    check(f"{name}: the red bars form one gap-free chain", chain,
          [(b["t"], b["start"], b["end"]) for b in crit][:8])
    check(f"{name}: the same seed draws the same chart", run(*args) == text)
    colours_match(name, chart, image)
    return crit


with tempfile.TemporaryDirectory() as tmp:
    # mappings: the full event graph, exported to check against
    for model in ("overlap", "strict"):
        gpath = os.path.join(tmp, f"a-{model}.json")
        open(gpath, "w").write(run("teg", "--graph-json", "--model", model,
                                   "examples/example-a.json"))
        teg_case(f"teg example-a {model}", ["teg", "--gantt", "--model", model,
                                            "examples/example-a.json"], gpath, tmp)
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
                            "fibonacci", "--json"))["deterministic"]["makespan"])
    rd = ["redistribute", "--P", "15", "--Q", "6", "--r", "2", "--s", "3", "--strategy",
          "optimal", "--alpha", "0.5"]
    dag_case("redistribute optimal", rd + ["--gantt"], tmp,
             makespan=json.loads(run(*rd, "--json"))["deterministic"]["makespan"])
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
