#!/usr/bin/env python3
"""make_big_teams.py: generate examples/big-teams.json.

An 8-stage pipeline whose teams have 31, 37, 41, 43, 47, 53, 59 and 61
processors (372 in all). The team sizes are distinct primes, so the number
of paths is their product, lcm = 18,128,893,780,549 (about 1.8e13): the full
event graph is far out of reach, while the Overlap method only needs the
per-column components (each transfer column is one u x v pattern with
gcd(u, v) = 1, at most 59 x 61).

Parameters: every output is 10 and every link has the default bandwidth 1
(one homogeneous network, so each transfer column has a closed form);
stage T1 has work 15, the others work 10; speeds are heterogeneous, from 2
to 9, drawn with a fixed linear congruential generator (no dependence on
Python's random module, so the file is the same on every Python 3), except
P1_01, the first processor of T1's team, which has speed 1: the one slow
processor. So the deterministic throughput is set by P1_01 (31 x 1 / 15),
and the exponential one by the first transfer column (31 x 37, closed form
u v lambda / (u + v - 1) with lambda = 1/10).

  python3 examples/tools/make_big_teams.py > examples/big-teams.json
"""
import json
import sys

TEAMS = [31, 37, 41, 43, 47, 53, 59, 61]
WORKS = [15, 10, 10, 10, 10, 10, 10, 10]
OUTPUT = 10
BANDWIDTH = 1


def speeds(n, seed=20110114):
    """n speeds in 2..9 from a 32-bit LCG (Numerical Recipes constants)."""
    x = seed
    out = []
    for _ in range(n):
        x = (1664525 * x + 1013904223) % 2**32
        out.append(2 + (x >> 16) % 8)
    return out


def main():
    s = speeds(sum(TEAMS))
    procs, mapping, k = [], [], 0
    for i, r in enumerate(TEAMS):
        team = []
        for j in range(r):
            name = f"P{i + 1}_{j + 1:02d}"
            speed = 1 if (i, j) == (0, 0) else s[k]
            procs.append({"name": name, "speed": speed})
            team.append(name)
            k += 1
        mapping.append(team)
    stages = [{"name": f"T{i + 1}", "work": WORKS[i], "output": OUTPUT} for i in range(len(TEAMS))]
    del stages[-1]["output"]

    def obj(d):
        return "{" + ", ".join(f"{json.dumps(a)}: {json.dumps(b)}" for a, b in d.items()) + "}"

    w = sys.stdout.write
    w('{\n  "name": "big-teams",\n  "stages": [\n')
    w(",\n".join("    " + obj(st) for st in stages))
    w('\n  ],\n  "processors": [\n')
    w(",\n".join("    " + obj(p) for p in procs))
    w(f'\n  ],\n  "bandwidth": {BANDWIDTH},\n  "mapping": [\n')
    w(",\n".join("    " + json.dumps(t) for t in mapping))
    w("\n  ]\n}\n")


if __name__ == "__main__":
    main()
