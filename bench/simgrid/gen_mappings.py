#!/usr/bin/env python3
"""gen_mappings.py: write the mapping files of the SimGrid comparison
(bench/simgrid/mappings/), with fixed seeds so that they never change.
Shapes follow the paper's experiments (section 7): a replicated 7-stage
chain (fig. 10), a 5 x 7 transfer pattern (fig. 12), a heterogeneous
single transfer (fig. 14), random 10- and 20-stage pipelines (table 1)."""
import json, random, os

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mappings")

def mapping(name, teams, work, output, speed, bw, hetero, seed, model="overlap"):
    rnd = random.Random(seed)
    n = len(teams)
    stages = [{"name": f"T{i+1}", "work": round(rnd.uniform(*work), 3),
               **({"output": round(rnd.uniform(*output), 3)} if i + 1 < n else {})}
              for i in range(n)]
    procs, mp = [], []
    for i, r in enumerate(teams):
        team = []
        for k in range(r):
            p = f"P{len(procs)}"
            procs.append({"name": p, "speed": round(rnd.uniform(*speed), 3)})
            team.append(p)
        mp.append(team)
    m = {"name": name, "model": model, "stages": stages, "processors": procs,
         "bandwidth": round(rnd.uniform(*bw), 3), "mapping": mp}
    if hetero:
        m["links"] = [{"from": a, "to": b, "bandwidth": round(rnd.uniform(*bw), 3)}
                      for i in range(n - 1) for a in mp[i] for b in mp[i + 1]]
    with open(os.path.join(here, name + ".json"), "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")

os.makedirs(here, exist_ok=True)
# fig. 10: 7 stages replicated 1, 3, 4, 5, 6, 7, 1 (27 processors, 420 paths)
mapping("chain7", [1, 3, 4, 5, 6, 7, 1], (5, 15), (5, 15), (1, 2), (1, 2), True, 10)
# fig. 12: a costly 5 x 7 transfer between light computations, homogeneous links
mapping("pattern5x7", [5, 7], (0.1, 0.2), (10, 10), (1, 1), (1, 1), False, 12)
# fig. 14: a single heterogeneous transfer, link times 100..1000
mapping("hetero3x4", [3, 4], (1, 1), (100, 100), (10, 10), (0.1, 1), True, 14)
# table 1: 10 stages on 20 processors, times 5..15
mapping("random10", [2, 1, 3, 2, 1, 4, 2, 1, 3, 1], (5, 15), (5, 15), (1, 1.5), (1, 1.5), True, 101)
# table 1: 20 stages on 30 processors, times 10..1000
mapping("random20", [1, 2, 1, 1, 3, 1, 2, 1, 1, 2, 1, 1, 3, 1, 2, 1, 1, 2, 1, 2], (10, 1000),
        (10, 1000), (1, 2), (1, 2), True, 102)
