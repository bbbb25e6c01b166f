#!/usr/bin/env python3
"""make_inputs.py: the hostile-but-valid mappings of issue 13 (item 13):
100,000 stages (the documented limit), two coprime teams of 50,000 and
49,999 processors, and a Strict mapping with a work of 1e308.
Usage: make_inputs.py OUTDIR"""
import json, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
n = 100000
stages = [{"name": "S%d" % i, "work": 1, "output": 1} for i in range(n)]
del stages[-1]["output"]
json.dump({"stages": stages, "processors": [{"name": "P%d" % i, "speed": 1} for i in range(n)],
           "bandwidth": 1, "mapping": [["P%d" % i] for i in range(n)]},
          open(os.path.join(out, "stages100k.json"), "w"))
a, b = 50000, 49999
procs = [{"name": "A%d" % i, "speed": 1} for i in range(a)] + \
        [{"name": "B%d" % i, "speed": 1} for i in range(b)]
json.dump({"stages": [{"work": 1, "output": 1}, {"work": 1}], "processors": procs, "bandwidth": 1,
           "mapping": [["A%d" % i for i in range(a)], ["B%d" % i for i in range(b)]]},
          open(os.path.join(out, "coprime.json"), "w"))
json.dump({"model": "strict", "stages": [{"work": 1e308, "output": 1}, {"work": 1}],
           "processors": [{"name": "A", "speed": 1}, {"name": "B", "speed": 1}], "bandwidth": 1,
           "mapping": [["A"], ["B"]]}, open(os.path.join(out, "huge-work.json"), "w"))
