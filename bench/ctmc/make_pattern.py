#!/usr/bin/env python3
"""make_pattern.py U V SEED: a two-stage mapping whose only transfer is a
U x V pattern (U senders, V receivers, gcd(U, V) = 1) with heterogeneous
links: every bandwidth uniform in [1, 10] from a fixed seed.  The transfer
is component U of `streamtp eval --json` (after the U computations of the
first stage); computations are fast enough never to limit."""
import json
import random
import sys


def main():
    u, v, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    snd = [f"S{a}" for a in range(u)]
    rcv = [f"R{b}" for b in range(v)]
    mapping = {
        "name": f"pattern-{u}x{v}",
        "stages": [{"name": "A", "work": 1.0, "output": 1.0}, {"name": "B", "work": 1.0}],
        "processors": [{"name": p, "speed": 100.0} for p in snd + rcv],
        "links": [{"from": s, "to": r, "bandwidth": round(rng.uniform(1, 10), 6)}
                  for s in snd for r in rcv],
        "mapping": [snd, rcv],
    }
    json.dump(mapping, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
