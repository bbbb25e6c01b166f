#!/usr/bin/env python3
"""dense.py: memory and speed of the Strict Markov chains of issue 14 (dense
chains), streamtp against a peer build of streamtp in the same run, with an
independent check of every value.

For each Strict mapping (make_strict.py TEAMS 1, all quantities uniform in
[1, 10]) it runs `streamtp eval FILE --json --max-states N` under
/usr/bin/time -v (the exponential throughput comes from the chain of the
reachable markings: enumeration, then the stationary solve) and reports the
states, the peak resident memory per state, the CPU time (user + system)
and states per CPU second (enumeration and solve together: a lower bound on
the enumeration rate), the solver and its sweeps and residual; then checks
the throughput against a Monte Carlo simulation of the same mapping with
exponential times (`streamtp simulate --law exp`, 95 % interval by batch
means) and against the deterministic throughput (an upper bound, N.B.U.E.).
With --peer PATH the same eval also runs with that streamtp binary (an
older build) and the table gives both.

    bench/ctmc/dense.py                              # 5,6 (2.6M states)
    bench/ctmc/dense.py --teams "5,6;6,7" --peer /tmp/old/build/streamtp
    bench/ctmc/dense.py --teams "6,7,2" --max-states 160000000 --datasets 20000000
    bench/ctmc/dense.py --teams 5,9 --max-states 125000000 --max-memory 12G --datasets 10000000

CPU seconds, not wall seconds, are the measure on a shared machine: a run
that gets a tenth of a core takes ten times as long on the clock.
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
    out, rss, cpu, wall = timev.timed(cmd, "dense.py")
    return json.loads(out.splitlines()[0]), rss, cpu, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--teams", default="5,6", help='";"-separated team lists, e.g. "5,6;6,7"')
    ap.add_argument("--streamtp", default=os.path.join(ROOT, "build", "streamtp"))
    ap.add_argument("--peer", default=None, help="another streamtp binary to run the same evals")
    ap.add_argument("--max-states", default="100000000")
    ap.add_argument("--max-memory", default=None,
                    help="passed to eval (its default is 25%% of the physical memory, "
                         "too little for the 10^8-state chain on a 24 GB machine)")
    ap.add_argument("--datasets", default="2000000", help="Monte Carlo data sets")
    ap.add_argument("--work", default="/tmp/streamtp-bench-dense")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    print("load average at start: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    print("| teams | build | states | peak MB | bytes/state | CPU s | states/CPU s | wall | solver"
          " | sweeps | residual | exp. throughput | Monte Carlo 95% | in interval | det. bound |")
    print("|" + "---|" * 15)
    for teams in a.teams.split(";"):
        path = os.path.join(a.work, "strict-%s.json" % teams.replace(",", "-"))
        with open(path, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "make_strict.py"), teams, "1"],
                           stdout=f, check=True)
        sim = json.loads(subprocess.run(
            [a.streamtp, "simulate", path, "--law", "exp", "--datasets", a.datasets,
             "--no-bounds", "--json"], capture_output=True, text=True, check=True).stdout)
        lo, hi = sim["ci95"]
        for name, exe in [("this", a.streamtp)] + ([("peer", a.peer)] if a.peer else []):
            r, rss, cpu, wall = timed([exe, "eval", path, "--json", "--max-states", a.max_states]
                                    + (["--max-memory", a.max_memory] if a.max_memory else []))
            ex = r["exponential"]
            if ex.get("throughput") is None:
                print("| %s | %s | - | %.0f | - | %.1f | - | %s | %s |" %
                      (teams, name, rss / 2**20, cpu, wall, ex.get("reason")))
                continue
            x, n = ex["throughput"], ex["states"]
            print("| %s | %s | %d | %.0f | %.1f | %.1f | %.3g | %s | %s | %s | %.2g | %.9f | "
                  "[%.6f, %.6f] | %s | %.6f |" %
                  (teams, name, n, rss / 2**20, rss / n, cpu, n / cpu, wall,
                   ex.get("solver", "-"), ex.get("sweeps", "-"), ex["residual"], x, lo, hi,
                   "yes" if lo <= x <= hi else "NO", r["deterministic"]["throughput"]), flush=True)
    print("load average at end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
