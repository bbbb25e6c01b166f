#!/usr/bin/env python3
"""bound.py: how close optimize's upper bound is to the optimum (issue 33,
item 1), two builds side by side (STREAMTP_OLD, the build before, and
STREAMTP or build/streamtp).

(a) The 100 problems of bench (a) (small.py: 2-4 stages x 8-10
processors, the same generator and seeds): the root bound (what
`--method heuristic --max-evaluations 1` reports) over the optimum that
`--method exact` proves, under det and under exp (the bound is the same
for both: exp <= det), with each build.
(b) Larger problems (`generate --all-links --seed S`, the mapping removed):
the heuristic's answer, bound and gap after --seconds, det and exp, with
each build.

    STREAMTP_OLD=/path/to/old/streamtp bench/optimize/bound.py [--count 100] [--seconds 10]
        [--large 6x30,20x100] [--large-seed 11]
"""
import argparse
import os
import statistics
import subprocess
import time

import common


def run(exe, path, *args):
    r = subprocess.run([exe, "optimize", path, "--json", *map(str, args)], check=True,
                       capture_output=True, text=True)
    return common.json.loads(r.stdout)


def root_bound(exe, path, model):
    return run(exe, path, "--method", "heuristic", "--max-evaluations", 1, "--model",
               model)["upper_bound"]


def share(values, limit):
    return sum(v <= limit for v in values)


def small(a, old, new):
    shapes = [(n, m) for n in (2, 3, 4) for m in (8, 9, 10)]
    paths = []
    for k, (n, m) in enumerate(shapes):
        count = a.count // len(shapes) + (k < a.count % len(shapes))
        paths += common.problems(a.out, n, m, count, a.seed + k, f"small-{n}x{m}")
    bounds = {path: (root_bound(old, path, a.model), root_bound(new, path, a.model))
              for path in paths}
    print(f"(a) {len(paths)} problems, {a.model}, load {common.load():.1f}")
    print("| objective | build | bound / optimum: median | max | within 2 % | within 5 % |"
          " the optimum itself |")
    print("|---|---|---|---|---|---|---|")
    for obj in a.objectives.split(","):
        opt = {}
        for path in paths:
            e = run(new, path, "--objective", obj, "--method", "exact", "--model", a.model)
            assert e["optimal"], path
            opt[path] = e["value"]
        for which, k in (("before", 0), ("after", 1)):
            ratio = [bounds[p][k] / opt[p] for p in paths]
            assert min(ratio) >= 1 - 1e-9, (which, obj, min(ratio))
            print(f"| {obj} | {which} | {statistics.median(ratio):.4f} | {max(ratio):.4f} | "
                  f"{share(ratio, 1.02)} | {share(ratio, 1.05)} | {share(ratio, 1 + 1e-9)} |")


def large(a, old, new):
    print(f"(b) heuristic {a.seconds} s, {a.model}, `generate --all-links --seed {a.large_seed}`")
    print("| problem | objective | build | value | bound | gap | bound set-up (s, "
          "`--max-evaluations 1`) |")
    print("|---|---|---|---|---|---|---|")
    for shape in a.large.split(","):
        n, m = shape.split("x")
        path = common.problems(a.out, int(n), int(m), 1, a.large_seed, f"bound-{shape}")[0]
        for obj in a.objectives.split(","):
            for which, exe in (("before", old), ("after", new)):
                r = run(exe, path, "--objective", obj, "--method", "heuristic", "--time-limit",
                        a.seconds, "--model", a.model)
                setup = run(exe, path, "--objective", obj, "--method", "heuristic",
                            "--max-evaluations", 1, "--model", a.model)["seconds"]
                print(f"| {shape} | {obj} | {which} | {r['value']:.5f} | "
                      f"{r['upper_bound']:.5f} | {100 * r['gap']:.1f} % | {setup:.2f} |",
                      flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--objectives", default="det,exp")
    ap.add_argument("--model", default="overlap")
    ap.add_argument("--seed", type=int, default=2026, help="small.py's --seed")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--large", default="6x30,20x100")
    ap.add_argument("--large-seed", type=int, default=11)
    ap.add_argument("--skip-small", action="store_true")
    ap.add_argument("--out", default=os.path.join(common.HERE, "..", "out", "optimize"))
    a = ap.parse_args()
    new = common.streamtp()
    old = os.environ.get("STREAMTP_OLD")
    if not old:
        raise SystemExit("set STREAMTP_OLD to the build to compare with")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load {common.load():.1f}")
    if not a.skip_small:
        small(a, old, new)
    if a.large:
        large(a, old, new)


if __name__ == "__main__":
    main()
