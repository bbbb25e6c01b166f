"""sweep_pool.py: a parameter sweep of Example A on a pool of processes.

Each point of a grid (the default bandwidth of the platform, the speed of
processor P2, the execution model) is one mapping; a pool of worker
processes (concurrent.futures.ProcessPoolExecutor) evaluates the points
with the streamtp module and the rows come back in grid order.  The same
`evaluate` runs on a Dask cluster in sweep_dask.py.

    python3 examples/sweep_pool.py [--workers N] [-o rows.csv]

Each worker process loads libstreamtp once (the module is imported there);
a mapping goes to a worker as a dict and its result comes back as a dict,
so nothing but plain data crosses the process boundary.  A point that fails
comes back as a row with its error (streamtp.Error pickles with its status).
"""
import argparse
import concurrent.futures
import csv
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))  # not needed once installed
import streamtp  # noqa: E402

with open(os.path.join(HERE, "example-a.json")) as f:
    BASE = json.load(f)

COLUMNS = ["bandwidth", "p2_speed", "model", "det_throughput", "exp_throughput", "method",
           "states", "critical_resource", "error"]


def grid(bandwidths=(0.5, 1.0, 2.0, 4.0), p2_speeds=(1.5, 3.0, 6.0),
         models=("overlap", "strict")):
    """The points of the sweep, in the order of the rows (Example A itself:
    bandwidth 1, P2 at speed 3)."""
    return [{"bandwidth": b, "p2_speed": s, "model": m}
            for b, s, m in itertools.product(bandwidths, p2_speeds, models)]


def mapping(point):
    """Example A with the point's default bandwidth and speed of P2 (the
    link P2 -> P3 keeps its own bandwidth, twice the default)."""
    m = json.loads(json.dumps(BASE))
    m["bandwidth"] = point["bandwidth"]
    for link in m.get("links", []):
        link["bandwidth"] = 2 * point["bandwidth"]
    for p in m["processors"]:
        if p["name"] == "P2":
            p["speed"] = point["p2_speed"]
    return m


def evaluate(point):
    """One row: runs in a worker process."""
    row = dict(point)
    try:
        r = streamtp.evaluate(mapping(point), point["model"])
    except streamtp.Error as e:
        row["error"] = f"{e.status}: {e}"
        return row
    row.update(det_throughput=r["deterministic"]["throughput"],
               exp_throughput=r["exponential"]["throughput"],
               method=r["exponential"]["method"], states=r["exponential"]["states"],
               critical_resource=r["deterministic"]["critical_resource"], error=None)
    return row


def sweep(points, workers=None, mp_context=None):
    """The rows of the points, in their order, computed by `workers`
    processes (default: one per core)."""
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers,
                                                mp_context=mp_context) as pool:
        return list(pool.map(evaluate, points, chunksize=4))


def write_csv(rows, out):
    w = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: row.get(k) for k in COLUMNS})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=None, help="processes (default: the cores)")
    ap.add_argument("-o", "--output", default="-", help="CSV file (default: standard output)")
    a = ap.parse_args()
    rows = sweep(grid(), a.workers)
    if a.output == "-":
        write_csv(rows, sys.stdout)
    else:
        with open(a.output, "w", newline="") as f:
            write_csv(rows, f)


if __name__ == "__main__":  # the workers import this file: no sweep at import
    main()
