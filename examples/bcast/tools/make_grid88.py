#!/usr/bin/env python3
"""make_grid88.py: the 88-machine grid of Steffenel 2006, section 7, as a
streamtp bcast platform (grid88.json) and as the machine-level latency matrix
that Lowekamp's algorithm partitions (grid88-latency.csv).

From the paper (Table 4): six clusters of 31, 29, 6, 1, 1 and 20 machines and
every latency, inside and between clusters, in microseconds.  Assumed (the
paper gives no gap): gaps are affine in the message size, g(m) = g0 +
per_byte * m, with gigabit Ethernet inside a site (g0 = 5 us, 0.008 us/byte,
125 MB/s) and 100 Mb/s between sites over the wide area (g0 = 50 us,
0.08 us/byte); the two Orsay clusters share a site, as do the three IDPOT
ones.  The single-machine clusters have no inside latency (Table 4 prints
"-"); their L and g are 0 and never used (a cluster of one machine has
nothing to broadcast).  Usage: make_grid88.py [OUTDIR]
"""
import json
import os
import sys

NAMES = ["orsay-0", "orsay-1", "idpot-0", "idpot-1", "idpot-2", "toulouse"]
SIZES = [31, 29, 6, 1, 1, 20]
SITE = ["orsay", "orsay", "idpot", "idpot", "idpot", "toulouse"]
T4 = [[47.56, 62.10, 12181.52, 12187.24, 12197.49, 5210.99],
      [62.10, 47.92, 12181.52, 12198.03, 12195.22, 5211.47],
      [12181.52, 12181.52, 35.52, 60.08, 60.08, 5388.49],
      [12187.24, 12198.03, 60.08, None, 242.47, 5393.98],
      [12197.49, 12195.22, 60.08, 242.47, None, 5394.10],
      [5210.99, 5211.47, 5388.49, 5393.98, 5394.10, 27.53]]
LAN = {"g0": 5, "per_byte": 0.008}
WAN = {"g0": 50, "per_byte": 0.08}


def platform():
    clusters = []
    for c, name in enumerate(NAMES):
        single = SIZES[c] == 1
        clusters.append({"name": name, "size": SIZES[c], "L": 0 if single else T4[c][c],
                         "g": 0 if single else LAN})
    n = len(NAMES)
    L = [[0 if i == j else T4[i][j] for j in range(n)] for i in range(n)]
    g = [[0 if i == j else (LAN if SITE[i] == SITE[j] else WAN) for j in range(n)]
         for i in range(n)]
    return {"clusters": clusters, "inter": {"L": L, "g": g}, "root": NAMES[0]}


def latency_rows():
    of = [c for c, s in enumerate(SIZES) for _ in range(s)]
    for a in range(len(of)):
        yield ",".join("0" if a == b else "%.2f" % T4[of[a]][of[b]] for b in range(len(of)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)) + "/.."
    with open(os.path.join(out, "grid88.json"), "w") as f:
        f.write("{\"clusters\": [\n")
        p = platform()
        f.write(",\n".join("  " + json.dumps(c) for c in p["clusters"]))
        f.write("],\n \"inter\": {\n  \"L\": [\n")
        f.write(",\n".join("   " + json.dumps(r) for r in p["inter"]["L"]))
        f.write("],\n  \"g\": [\n")
        f.write(",\n".join("   " + json.dumps(r) for r in p["inter"]["g"]))
        f.write("]},\n \"root\": %s}\n" % json.dumps(p["root"]))
    with open(os.path.join(out, "grid88-latency.csv"), "w") as f:
        for row in latency_rows():
            f.write(row + "\n")


if __name__ == "__main__":
    main()
