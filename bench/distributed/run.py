#!/usr/bin/env python3
"""run.py: one Markov chain across MPI ranks (`--distributed`, docs/cluster.md),
measured against the one-machine answer in the same run.

For each chain (Strict mappings and Overlap patterns of about 1e4 to 1e7
states) it runs `streamtp eval --json` in one process, then `mpirun -n K
streamtp eval --json --distributed` for each K, and reads what rank 0 logs
(PETSc option -stp_dist_log): states, moves, seconds of the enumeration and
of the solve, iterations, residual, the peak resident memory of every rank,
and per depth of the breadth-first search the states found and the words
exchanged.  It prints one Markdown row per run and writes them all to
bench/out/distributed/results.json.

    bench/distributed/run.py [--sizes 1e4,1e5,1e6,1e7] [--kinds strict,overlap]
                             [--ranks 1,2,4] [--method null] [--bin build-cluster/streamtp]
                             [--results bench/out/distributed/results.json]

Needs a build with -DSTP_PETSC=ON (scripts/test-cluster.sh makes one) and
`mpirun` (scripts/deps.sh cluster).  More ranks than cores are started with
--oversubscribe: on a machine with fewer cores than ranks the wall times
say little (the ranks share cores); the memory per rank and the volume
exchanged do not depend on that.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "bench", "out", "distributed")

# (kind, size): how to make a chain of about that many states.
STRICT = {"1e4": "2,3,3", "1e5": "3,4,3", "1e6": "2,3,4,3", "1e7": "4,5,4"}
OVERLAP = {"1e4": (7, 8), "1e5": (8, 9), "1e6": (10, 11), "1e7": (11, 12)}


def pattern(u, v, path):
    """A u x v transfer column whose links have five rates (no closed form)."""
    procs = [{"name": f"A{i}", "speed": 100.0} for i in range(u)] + \
            [{"name": f"B{j}", "speed": 100.0} for j in range(v)]
    links = [{"from": f"A{i}", "to": f"B{j}", "bandwidth": 1 + ((i * 7 + j * 3) % 5) * 0.25}
             for i in range(u) for j in range(v)]
    with open(path, "w") as f:
        json.dump({"name": f"pattern-{u}x{v}", "model": "overlap",
                   "stages": [{"name": "T1", "work": 1, "output": 10}, {"name": "T2", "work": 1}],
                   "processors": procs, "bandwidth": 2.0, "links": links,
                   "mapping": [[f"A{i}" for i in range(u)], [f"B{j}" for j in range(v)]]}, f)


def make(binary, kind, size):
    os.makedirs(OUT, exist_ok=True)
    if kind == "overlap":
        u, v = OVERLAP[size]
        path = os.path.join(OUT, f"pattern-{u}x{v}.json")
        if not os.path.exists(path):
            pattern(u, v, path)
        return path
    teams = STRICT[size]
    d = os.path.join(OUT, "strict-" + teams.replace(",", "-"))
    if not os.path.exists(os.path.join(d, "map-00001.json")):
        subprocess.run([binary, "generate", "--teams", teams, "--model", "strict", "--count", "1",
                        "--seed", "2", "-o", d], check=True, capture_output=True)
    return os.path.join(d, "map-00001.json")


def timed(cmd, env=None):
    """Wall seconds, peak RSS (KiB, of the process tree's largest), CPU seconds
    (user + system of the command and of the processes it waited for: mpirun's
    ranks) and stdout."""
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S"] + cmd, capture_output=True, text=True,
                       env=env)
    wall = time.time() - t0
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    peak, user, system = p.stderr.strip().splitlines()[-1].split()
    return wall, int(peak), float(user) + float(system), p.stdout


def load():
    return os.getloadavg()[0]


def run_one(binary, path, ranks, method, limits):
    log = os.path.join(OUT, f"log-{os.getpid()}.jsonl")  # runs may overlap
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PETSC_OPTIONS=f"-stp_dist_log {log} -stp_dist_method {method}")
    wall, _, cpu, out = timed(["mpirun", "--oversubscribe", "-n", str(ranks), binary, "eval", path,
                          "--json", "--distributed"] + limits, env)
    res = json.loads(out.splitlines()[0])["exponential"]
    with open(log) as f:
        rec = json.loads(f.readline())
    words = [lv[1] for lv in rec["levels"]]
    return {"ranks": ranks, "wall": wall, "cpu": cpu, "throughput": res["throughput"],
            "residual": res["residual"], "iterations": rec["iterations"],
            "states": rec["states"], "moves": rec["moves"], "period": rec["period"],
            "seconds_build": rec["seconds_build"], "seconds_solve": rec["seconds_solve"],
            "peak_mib": [k / 1024 for k in rec["peak_kib"]], "depths": len(words),
            "bytes": 8 * sum(words), "max_level_bytes": 8 * max(words), "load": load()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1e4,1e5,1e6")
    ap.add_argument("--kinds", default="strict,overlap")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--method", default="null", help="null (default), fixed or eps")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-cluster", "streamtp"))
    ap.add_argument("--results", default=os.path.join(OUT, "results.json"))
    a = ap.parse_args()
    limits = ["--max-states", "100000000", "--max-memory", "80%"]
    results = []
    print("| chain | states | K | wall s | CPU s | build s | solve s | its | states/s (build) | "
          "peak MiB per rank (max) | bytes exchanged (per state) | largest depth's exchange | "
          "rel. diff | residual | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in a.kinds.split(","):
        for size in a.sizes.split(","):
            path = make(a.bin, kind, size)
            wall1, peak1, cpu1, out = timed([a.bin, "eval", path, "--json"] + limits)
            one = json.loads(out.splitlines()[0])["exponential"]
            name = os.path.basename(os.path.dirname(path)) if kind == "strict" else \
                os.path.basename(path)[:-5]
            print(f"| {name} (one process) | {one['states']} | - | {wall1:.2f} | {cpu1:.2f} | | | "
                  f"{one['sweeps']} | | {peak1 / 1024:.0f} | | | | {one['residual']:.1e} | "
                  f"{load():.1f} |", flush=True)
            row = {"chain": name, "kind": kind, "one": {"wall": wall1, "cpu": cpu1, "peak_mib": peak1 / 1024,
                                                       **one}, "runs": []}
            for k in map(int, a.ranks.split(",")):
                r = run_one(a.bin, path, k, a.method, limits)
                r["rel_diff"] = abs(r["throughput"] - one["throughput"]) / one["throughput"]
                row["runs"].append(r)
                print(f"| {name} | {r['states']} | {k} | {r['wall']:.2f} | {r['cpu']:.2f} | "
                      f"{r['seconds_build']:.2f} | {r['seconds_solve']:.2f} | {r['iterations']} | "
                      f"{r['states'] / r['seconds_build']:.3g} | {max(r['peak_mib']):.0f} | "
                      f"{r['bytes'] / 2**20:.1f} MiB ({r['bytes'] / r['states']:.0f} B) | "
                      f"{r['max_level_bytes'] / 2**20:.2f} MiB of {r['depths']} | "
                      f"{r['rel_diff']:.1e} | {r['residual']:.1e} | {r['load']:.1f} |",
                      flush=True)
            results.append(row)
    with open(a.results, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
