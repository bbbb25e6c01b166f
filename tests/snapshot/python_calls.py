"""python_calls.py: the results of the Python module on the bundled
examples, one JSON line per call, for tests/snapshot/snapshot.sh (the
output of a refactoring step is diffed against the one before it)."""
import json
import sys

import streamtp

EX = "examples/"
CALLS = [
    ("evaluate", lambda: streamtp.evaluate(EX + "example-a.json")),
    ("evaluate strict", lambda: streamtp.evaluate(EX + "example-a.json", "strict")),
    ("evaluate law", lambda: streamtp.evaluate(EX + "example-a.json", law="erlang:k=3")),
    ("evaluate hom", lambda: streamtp.evaluate(EX + "homogeneous-2x3.json", "strict")),
    ("evaluate big", lambda: streamtp.evaluate(EX + "big-teams.json")),
    ("simulate", lambda: streamtp.simulate(EX + "example-a.json", datasets=20000, seed=3)),
    ("simulate explain", lambda: streamtp.simulate(EX + "example-a.json", "strict", datasets=20000,
                                                   seed=3, utilization=True, latency=True)),
    ("simulate law", lambda: streamtp.simulate(EX + "example-a.json", "strict",
                                               law="erlang:k=2", datasets=20000, seed=3)),
    ("optimize exact", lambda: streamtp.optimize(EX + "example-a.json", method="exact")),
    ("graph barrier", lambda: streamtp.graph(EX + "graphs/barrier.json")),
    ("graph buffer sim", lambda: streamtp.graph(EX + "graphs/buffer.json", simulate=2000, seed=5)),
    ("graph fork law", lambda: streamtp.graph(EX + "graphs/fork-join.json", law="erlang:k=2")),
    ("reduce", lambda: streamtp.reduce(8, 1, 2)),
    ("reduce fib", lambda: streamtp.reduce(12, 2, 1, tree="fibonacci")),
    ("reduce range", lambda: streamtp.reduce((1, 6), 1, 1, brief=True)),
    ("reduce sim", lambda: streamtp.reduce((1, 6), 1, 1, simulate=200, seed=4)),
    ("reduce law", lambda: streamtp.reduce(6, 1, 2, law="erlang:k=3")),
    ("reduce law sim", lambda: streamtp.reduce(6, 1, 2, law="erlang:k=3", simulate=300, seed=2)),
    ("reduce alg2", lambda: streamtp.reduce(9, 1, 1, max_transfers=2)),
    ("reduce alg3", lambda: streamtp.reduce(9, 1, 1, max_reducers=3)),
    ("reduce one", lambda: streamtp.reduce(1, 1, 1, simulate=10, law="erlang:k=2")),
    ("reduce none", lambda: streamtp.reduce((1, 40), 1, 2, exp_method="none", brief=True)),
    ("bcast", lambda: streamtp.bcast(EX + "bcast/small4.json")),
    ("bcast ecef sim", lambda: streamtp.bcast(EX + "bcast/small4.json", "ecef", simulate=300,
                                              law="erlang:k=2")),
    ("bcast ecef law", lambda: streamtp.bcast(EX + "bcast/small4.json", "ecef", law="erlang:k=2")),
    ("bcast states", lambda: streamtp.bcast(EX + "bcast/small4.json", "ecef-la", max_states=3)),
    ("bcast grid88", lambda: streamtp.bcast(EX + "bcast/grid88.json", "fef", size=1000000)),
    ("bcast_model k", lambda: streamtp.bcast_model(8, 1, 2, k=4, gs=0.6, g1=0.1)),
    ("bcast_model", lambda: streamtp.bcast_model(8, 1, 2)),
    ("bcast_partition", lambda: streamtp.bcast_partition(EX + "bcast/grid88-latency.csv", 0.5)),
    ("teg", lambda: streamtp.teg(EX + "example-a.json")),
    ("ctmc", lambda: streamtp.ctmc(EX + "example-a.json")),
    ("redistribute", lambda: streamtp.redistribute(P=4, Q=6, r=3, s=2)),
    ("redistribute all", lambda: streamtp.redistribute(P=4, Q=6, r=3, s=2, strategy="all",
                                                       law="erlang:k=2", simulate=300, seed=2)),
    ("redistribute optimal", lambda: streamtp.redistribute(P=4, Q=6, r=3, s=2,
                                                           strategy="optimal")),
    ("batch", lambda: streamtp.batch(EX)),
    ("batch explain", lambda: streamtp.batch(EX, sensitivity=True, top=3, utilization=True,
                                             latency=True)),
    ("batch simulate", lambda: streamtp.batch(EX, simulate=True, datasets=20000, seed=3,
                                              utilization=True, latency=True)),
]


def scrub(v):
    """Wall times change from run to run: their presence is what is kept."""
    if isinstance(v, dict):
        return {k: ("#" if "second" in k else scrub(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v


for name, call in CALLS:
    try:
        out = scrub(call())
    except Exception as e:  # the error is part of the record
        out = {"raised": type(e).__name__, "message": str(e)}
    print(json.dumps({"call": name, "result": out}, sort_keys=True))
sys.stdout.flush()
