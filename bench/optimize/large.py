#!/usr/bin/env python3
"""large.py: parts (b) and (c) of bench/optimize: 20 stages x 100
processors (the paper's Table 1 times, every pair of processors linked).
For each problem and objective, from one heuristic run of 60 s (anytime.c):
the best value after 1, 10 and 60 s, its gap to the upper bound, its gain
over the constructive start and over the best of 1,000 random mappings;
and the candidates evaluated per second, against stp_evaluate of a whole
mapping.

    bench/optimize/large.py [--count 3] [--checkpoints 1,10,60] [--random 1000]
"""
import argparse
import json
import os
import subprocess
import time

import common


def build():
    here = common.HERE
    subprocess.run(["bash", "-c", f". {here}/../common/bench.sh && bench_build optimize anytime"],
                   check=True)
    return os.path.join(here, "..", "out", "build-optimize", "anytime")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--stages", type=int, default=20)
    ap.add_argument("--processors", type=int, default=100)
    ap.add_argument("--checkpoints", default="1,10,60")
    ap.add_argument("--random", type=int, default=1000)
    ap.add_argument("--objectives", default="det,exp")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=os.path.join(common.HERE, "..", "out", "optimize"))
    a = ap.parse_args()
    exe = build()
    paths = common.problems(a.out, a.stages, a.processors, a.count, a.seed,
                            f"large-{a.stages}x{a.processors}")
    print(f"{len(paths)} problems of {a.stages} x {a.processors}, load {common.load():.1f}, "
          f"{time.strftime('%Y-%m-%d %H:%M')}")
    cps = a.checkpoints.split(",")
    head = ["objective", "problem"] + [f"best {c} s" for c in cps] + \
        [f"gap {cps[-1]} s", "constructive", f"best of {a.random} random", "gain over constructive",
         "gain over random", "candidates/s", "stp_evaluate/s"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for path in paths:
        out = subprocess.run([exe, "--checkpoints", a.checkpoints, "--random", str(a.random),
                              "--objectives", a.objectives, path],
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            r = json.loads(line)
            best = list(r["best"].values())  # in the order of the checkpoints
            v = r["value"]
            row = [r["objective"], os.path.basename(path)] + [f"{b:.5f}" for b in best] + [
                f"{100 * (r['upper_bound'] - v) / r['upper_bound']:.1f} %",
                f"{r['constructive']:.5f}", f"{r['random']:.5f}",
                f"{100 * (v / r['constructive'] - 1):+.1f} %",
                f"{100 * (v / r['random'] - 1):+.1f} %",
                f"{r['evaluated'] / r['seconds']:.0f}", f"{r['evaluate_per_second']:.0f}"]
            print("| " + " | ".join(row) + " |", flush=True)
    print(f"load {common.load():.1f}")


if __name__ == "__main__":
    main()
