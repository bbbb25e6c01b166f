#!/usr/bin/env python3
"""dense_routes.py: memory and speed of the chains that issue 14's dense
route (engine/densechain.h) serves besides the Strict chain of `eval`: the
Overlap pattern chains and the generic reachability chain of `streamtp
graph` (graph files, and the seed families through the same code), each
against a peer build of streamtp in the same run, with an independent check
of every value.

- Pattern U x V (make_pattern.py U V SEED: two stages, U senders, V
  receivers, heterogeneous links; the transfer limits the throughput):
  `streamtp eval FILE --model overlap --json` under /usr/bin/time -v; the
  exponential throughput is checked against a Monte Carlo run of the same
  mapping (`simulate --model overlap --law exp`, 95 % batch-means interval).
- Graph of a Strict mapping (make_strict.py TEAMS 1, exported with `streamtp
  teg --model strict --graph-json`): `streamtp graph FILE --json`; the
  throughput is checked against `eval --model strict` on the mapping (the
  Strict chain of models/pipeline/strict_chain.c, another enumeration):
  relative difference reported.

For each, the table gives the states, the peak resident memory per state,
the CPU seconds (user + system; medians of --runs runs, the builds
alternating) and the relative difference from the peer's
throughput (when --peer is given).

    bench/ctmc/dense_routes.py --patterns 10x11 --graphs 5,6 --peer /tmp/old/build/streamtp
    bench/ctmc/dense_routes.py --patterns 10x17 --graphs "6,7" --max-states 100000000

CPU seconds, not wall seconds, are the measure on a shared machine.
"""
import argparse
import json
import os
import subprocess
import sys

import timev

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def timed(cmd):
    out, rss, cpu, _ = timev.timed(cmd, "dense_routes.py")
    out = json.loads(out)
    if isinstance(out, list):
        out = out[0]
    return out, rss, cpu


def write(path, script, *args):
    with open(path, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, script)] + list(args), stdout=f,
                       check=True)


def row(kind, name, build, n, rss, cpu, x, peer_x, check):
    diff = "-" if peer_x is None else "%.1e" % (abs(x - peer_x) / abs(peer_x))
    print("| %s %s | %s | %d | %.0f | %.1f | %.1f | %.12g | %s | %s |" %
          (kind, name, build, n, rss / 2**20, rss / n, cpu, x, diff, check), flush=True)


def builds(a):
    return [("this", a.streamtp)] + ([("peer", a.peer)] if a.peer else [])


def runs(a, command):
    """Each build a.runs times, the builds alternating; per build, its last
    output and the medians of its peak memory and CPU seconds."""
    seen = {name: [] for name, _ in builds(a)}
    for _ in range(a.runs):
        for name, exe in builds(a):
            seen[name].append(timed(command(exe)))
    median = lambda xs: sorted(xs)[len(xs) // 2]
    return [(name, got[-1][0], median([g[1] for g in got]), median([g[2] for g in got]))
            for name, got in seen.items()]


def pattern(a, uv):
    u, v = uv.split("x")
    path = os.path.join(a.work, "pattern-%s.json" % uv)
    write(path, "make_pattern.py", u, v, "1")
    sim = json.loads(subprocess.run(
        [a.streamtp, "simulate", path, "--model", "overlap", "--law", "exp", "--datasets",
         a.datasets, "--no-bounds", "--json"], capture_output=True, text=True, check=True).stdout)
    lo, hi = sim["ci95"]
    first = None
    for name, r, rss, cpu in runs(a, lambda exe: [exe, "eval", path, "--model", "overlap",
                                                  "--json", "--max-states", a.max_states]):
        ex = r["exponential"]
        x = ex["throughput"]
        first = x if first is None else first
        row("pattern", uv, name, ex["states"], rss, cpu, x, None if name == "this" else first,
            "MC [%.6f, %.6f] %s" % (lo, hi, "in" if lo <= x <= hi else "OUT"))


def graph(a, teams):
    tag = teams.replace(",", "-")
    mapping = os.path.join(a.work, "strict-%s.json" % tag)
    path = os.path.join(a.work, "graph-strict-%s.json" % tag)
    write(mapping, "make_strict.py", teams, "1")
    with open(path, "w") as f:
        subprocess.run([a.streamtp, "teg", mapping, "--model", "strict", "--graph-json"],
                       stdout=f, check=True)
    ev = json.loads(subprocess.run(
        [a.streamtp, "eval", mapping, "--model", "strict", "--json", "--max-states",
         a.max_states], capture_output=True, text=True, check=True).stdout)
    if isinstance(ev, list):
        ev = ev[0]
    want = ev["exponential"]["throughput"]
    first = None
    for name, r, rss, cpu in runs(a, lambda exe: [exe, "graph", path, "--json",
                                                  "--max-states", a.max_states]):
        ex = r["exponential"]
        x = ex["throughput"]
        first = x if first is None else first
        row("graph strict", teams, name, ex["states"], rss, cpu, x,
            None if name == "this" else first,
            "eval strict %.12g (%.1e)" % (want, abs(x - want) / want))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patterns", default="10x11", help='","-separated, e.g. "10x11,9x17"')
    ap.add_argument("--graphs", default="5,6", help='";"-separated team lists, e.g. "5,6;5,7"')
    ap.add_argument("--streamtp", default=os.path.join(ROOT, "build", "streamtp"))
    ap.add_argument("--peer", default=None, help="another streamtp binary, same runs")
    ap.add_argument("--max-states", default="100000000")
    ap.add_argument("--datasets", default="2000000", help="Monte Carlo data sets")
    ap.add_argument("--runs", type=int, default=3,
                    help="runs of each build (alternating); medians reported")
    ap.add_argument("--work", default="/tmp/streamtp-bench-dense-routes")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    print("load average at start: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    print("| chain | build | states | peak MB | bytes/state | CPU s | exp. throughput"
          " | vs peer | check |")
    print("|" + "---|" * 9)
    for uv in filter(None, a.patterns.split(",")):
        pattern(a, uv)
    for teams in filter(None, a.graphs.split(";")):
        graph(a, teams)
    print("load average at end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
