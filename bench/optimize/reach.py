#!/usr/bin/env python3
"""reach.py: how far the exact method goes in 60 s: for each number of
stages, the processors it proves optimal on every problem of a few random
ones (the paper's Table 1 times, every pair linked), growing M until one
problem is not proved within the limit.

    bench/optimize/reach.py [--stages 2,3,4,5,6] [--per-cell 3] [--limit 60] [--objective det]
"""
import argparse
import os
import statistics
import time

import common


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stages", default="2,3,4,5,6")
    ap.add_argument("--per-cell", type=int, default=3)
    ap.add_argument("--limit", type=float, default=60)
    ap.add_argument("--objective", default="det")
    ap.add_argument("--model", default="overlap")
    ap.add_argument("--max-processors", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(common.HERE, "..", "out", "optimize"))
    a = ap.parse_args()
    print(f"exact, {a.objective}, {a.model}, limit {a.limit} s, {a.per_cell} problems per cell, "
          f"load {common.load():.1f}, {time.strftime('%Y-%m-%d %H:%M')}")
    print("| stages | processors proved (all problems) | median / max seconds there | first not proved |")
    print("|---|---|---|---|")
    for n in map(int, a.stages.split(",")):
        proved, times, failed = None, [], None
        for m in range(n + 1, a.max_processors + 1):
            paths = common.problems(a.out, n, m, a.per_cell, a.seed + 1000 * n + m, f"reach-{n}x{m}")
            runs = [common.optimize(p, "--method", "exact", "--objective", a.objective, "--model",
                                    a.model, "--time-limit", a.limit) for p in paths]
            if all(r["optimal"] for r in runs):
                proved, times = m, [r["seconds"] for r in runs]
            else:
                failed = f"{m} ({sum(not r['optimal'] for r in runs)} of {len(runs)})"
                break
        cell = f"{statistics.median(times):.2f} / {max(times):.2f}" if times else "-"
        print(f"| {n} | {proved} | {cell} | {failed} |", flush=True)
    print(f"load {common.load():.1f}")


if __name__ == "__main__":
    main()
