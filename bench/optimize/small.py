#!/usr/bin/env python3
"""small.py: part (a) of bench/optimize: on 100 problems of 8 to 10
processors (2 to 4 stages, the paper's Table 1 times), does the heuristic
with a budget of one second find the optimum that the exact method
proves?  Per objective: how many it finds (target >= 95 %), the largest
relative shortfall (target <= 1 %), and the exact method's times.

    bench/optimize/small.py [--count 100] [--budget 1] [--objectives det,exp]
    bench/optimize/small.py --max-evaluations 150000 --heuristic-seeds 1,2,3

With --max-evaluations the heuristic's budget is that many candidates
instead of seconds: the same answer on any machine and at any load (the
A/B of two versions of the heuristic), once per --heuristic-seeds seed.
"""
import argparse
import statistics
import time

import common


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--budget", type=float, default=1.0, help="heuristic seconds")
    ap.add_argument("--objectives", default="det,exp")
    ap.add_argument("--model", default="overlap")
    ap.add_argument("--max-evaluations", type=int, default=0,
                    help="heuristic budget in candidates instead of seconds")
    ap.add_argument("--heuristic-seeds", default="1", help="the heuristic's --seed values")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=common.os.path.join(common.HERE, "..", "out", "optimize"))
    a = ap.parse_args()
    shapes = [(n, m) for n in (2, 3, 4) for m in (8, 9, 10)]
    paths = []
    for k, (n, m) in enumerate(shapes):
        count = a.count // len(shapes) + (k < a.count % len(shapes))
        paths += common.problems(a.out, n, m, count, a.seed + k, f"small-{n}x{m}")
    print(f"{len(paths)} problems, load {common.load():.1f}, {time.strftime('%Y-%m-%d %H:%M')}")
    budget = (["--max-evaluations", a.max_evaluations] if a.max_evaluations
              else ["--time-limit", a.budget])
    what = f"{a.max_evaluations} candidates" if a.max_evaluations else f"{a.budget} s"
    for obj in a.objectives.split(","):
        exact, exact_s = {}, []
        for path in paths:
            e = common.optimize(path, "--objective", obj, "--method", "exact", "--model", a.model)
            assert e["optimal"], path
            exact[path] = e["value"]
            exact_s.append(e["seconds"])
        for seed in a.heuristic_seeds.split(","):
            found, worst, misses = 0, 0.0, []
            for path in paths:
                h = common.optimize(path, "--objective", obj, "--method", "heuristic", "--model",
                                    a.model, "--seed", seed, *budget)
                short = (exact[path] - h["value"]) / exact[path]
                if short <= 1e-9:
                    found += 1
                else:
                    misses.append((path, short, h["evaluated"]))
                worst = max(worst, short)
            print(f"{obj}: heuristic ({what}, seed {seed}) finds the optimum on "
                  f"{found}/{len(paths)}, worst shortfall {100 * worst:.3f} %; exact median "
                  f"{statistics.median(exact_s):.3f} s, max {max(exact_s):.2f} s; "
                  f"load {common.load():.1f}")
            for path, short, ev in misses:
                print(f"  missed {path}: {100 * short:.3f} % short after {ev} candidates")


if __name__ == "__main__":
    main()
