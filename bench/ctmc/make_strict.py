#!/usr/bin/env python3
"""make_strict.py TEAMS SEED: a Strict-model mapping with one stage per team
size in TEAMS (e.g. 2,3,2), every work, output, speed and bandwidth uniform
in [1, 10] from a fixed seed.  Its Markov chain is that of the whole event
graph (`streamtp ctmc FILE`)."""
import json
import random
import sys


def main():
    teams = [int(x) for x in sys.argv[1].split(",")]
    rng = random.Random(int(sys.argv[2]))
    mapping = [[f"P{i}_{k}" for k in range(t)] for i, t in enumerate(teams)]
    stages = [{"name": f"T{i}", "work": round(rng.uniform(1, 10), 3),
               "output": round(rng.uniform(1, 10), 3)} for i in range(len(teams))]
    del stages[-1]["output"]
    doc = {
        "name": "strict-" + "-".join(map(str, teams)),
        "model": "strict",
        "stages": stages,
        "processors": [{"name": p, "speed": round(rng.uniform(1, 10), 3)}
                       for team in mapping for p in team],
        "links": [{"from": a, "to": b, "bandwidth": round(rng.uniform(1, 10), 3)}
                  for i in range(len(teams) - 1) for a in mapping[i] for b in mapping[i + 1]],
        "mapping": mapping,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
