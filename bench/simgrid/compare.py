#!/usr/bin/env python3
"""compare.py: `streamtp simulate` against the SimGrid S4U peer (sg_pipeline)
on the same mappings, models, laws and numbers of data sets: throughputs
(agreement within 2%, as in the paper), times and their ratio, and the
firings per second of streamtp.  Called by run.sh; prints a Markdown table.

Times are process CPU times (user + system, from getrusage of the child), so
that other jobs on a shared machine do not inflate them; streamtp takes the
best of 3 runs.  "sim" is streamtp's own simulation CPU time (its JSON
"cpu_seconds": the kernel and the random draws, without process start-up and
file reading); firing rates are per CPU second, i.e. per core.

Usage: compare.py --streamtp BIN --simgrid BIN [--datasets N] [--warmup W]
                  [--laws det,exp] [--models overlap,strict] [MAPPING...]
"""
import argparse
import json
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_MAPPINGS = [os.path.join(ROOT, "examples", "example-a.json")] + sorted(
    os.path.join(HERE, "mappings", f) for f in os.listdir(os.path.join(HERE, "mappings"))
    if f.endswith(".json"))


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_json(cmd):
    """The last JSON line printed by cmd, and the CPU time of the process."""
    c0 = cpu_children()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1]), cpu_children() - c0


def best_of(cmd, repeat=3):
    """The run with the least CPU time, the least simulation CPU time and the
    highest firing rate per CPU second of `repeat` runs."""
    runs = [run_json(cmd) for _ in range(repeat)]
    res, cpu = min(runs, key=lambda r: r[1])
    return (res, cpu, min(r[0]["cpu_seconds"] for r in runs),
            max(r[0]["firings_per_cpu_second"] for r in runs))


def streamtp_cmd(binary, path, model, law, datasets, warmup=None):
    cmd = [binary, "simulate", path, "--model", model, "--law", law, "--datasets",
           str(datasets), "--no-bounds", "--json"]
    return cmd + (["--warmup", str(warmup)] if warmup is not None else [])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamtp", required=True)
    ap.add_argument("--simgrid", required=True)
    ap.add_argument("--datasets", type=int, default=100000)
    ap.add_argument("--warmup", type=int, default=10000)
    ap.add_argument("--laws", default="det,exp")
    ap.add_argument("--models", default="overlap,strict")
    ap.add_argument("--long", type=int, default=10000000,
                    help="data sets of the long streamtp run that measures firings/s")
    ap.add_argument("mappings", nargs="*")
    a = ap.parse_args()
    print(f"{a.datasets} data sets measured after {a.warmup} of warm-up in both tools "
          f"(streamtp: 20 batch means, --no-bounds, best of 3); times in CPU seconds.\n")
    print("| mapping | model | law | SimGrid | streamtp [95% CI] | diff | SimGrid s | "
          "streamtp s (sim) | ratio (sim) | streamtp Mfirings/s (same N / long run) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worst_diff, worst_ratio, worst_sim, ok = 0.0, float("inf"), float("inf"), True
    for path in a.mappings or DEFAULT_MAPPINGS:
        name = os.path.splitext(os.path.basename(path))[0]
        for model in a.models.split(","):
            for law in a.laws.split(","):
                sg, sg_cpu = run_json([a.simgrid, path, "--model", model, "--law", law,
                                       "--datasets", str(a.datasets), "--warmup",
                                       str(a.warmup), "--log=root.thres:critical"])
                st, st_cpu, st_sim, st_rate = best_of(streamtp_cmd(a.streamtp, path, model, law,
                                                                   a.datasets, a.warmup))
                long_rate = best_of(streamtp_cmd(a.streamtp, path, model, law, a.long))[3]
                diff = sg["throughput"] / st["simulation"]["throughput"] - 1
                ratio, ratio_sim = sg_cpu / st_cpu, sg_cpu / st_sim
                worst_diff = max(worst_diff, abs(diff))
                worst_ratio = min(worst_ratio, ratio)
                worst_sim = min(worst_sim, ratio_sim)
                ok &= abs(diff) <= 0.02
                lo, hi = st["simulation"]["ci95"]
                print(f"| {name} | {model} | {law} | {sg['throughput']:.6g} | "
                      f"{st['throughput']:.6g} [{lo:.6g}, {hi:.6g}] | {100 * diff:+.2f}% | "
                      f"{sg_cpu:.2f} | {st_cpu:.4f} ({st_sim:.4f}) | "
                      f"{ratio:.0f}x ({ratio_sim:.0f}x) | "
                      f"{st_rate / 1e6:.0f} / {long_rate / 1e6:.0f} |", flush=True)
    print(f"\nlargest throughput difference {100 * worst_diff:.2f}% (target 2%); smallest "
          f"speed ratio {worst_ratio:.0f}x for the processes, {worst_sim:.0f}x for the "
          f"simulation alone (target 1000x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
