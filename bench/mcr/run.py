#!/usr/bin/env python3
"""run.py: streamtp's Howard against Boost's maximum_cycle_ratio (and LEMON's
HowardMmc on mean-only graphs), in the same run, on the same graph files.

Builds bench/mcr into bench/out/build-mcr, writes the graphs into
bench/out/mcr/ (kept between runs), runs every solver on every graph (best of
several runs where cheap), checks that they find the same ratio (relative
1e-9) and prints a markdown table (also saved to bench/out/mcr/results.md).
Exit status 1 when two solvers disagree or one fails.

    bench/mcr/run.py                      # every family, 1e3 .. 1e6 nodes
    bench/mcr/run.py --max-size 1e5       # quicker
    bench/mcr/run.py --families torus,random --sizes 1e6
    bench/mcr/run.py --runs 5             # medians of 5 alternating runs per solver

With --runs R (default 3) each solver is run R times on each graph, the
solvers alternating (streamtp, Boost, LEMON, streamtp, ...) so that a burst
of load from other processes hits both; each run reports the best of its k
solves, and the table gives the median over the R runs of each solver and
the median of the R per-run ratios Boost / streamtp (the peer in the same
run).
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "bench", "out")
BUILD = os.path.join(OUT, "build-mcr")
GRAPHS = os.path.join(OUT, "mcr")
SIZES = ["1e3", "1e4", "1e5", "1e6"]
SEED = "1"

# Strict mappings whose event graph has R * 7 transitions, R = lcm(teams).
STRICT_TEAMS = {"1e3": "1 11 13 1", "1e4": "10 11 13 1", "1e5": "4 25 11 13",
                "1e6": "27 11 13 37"}
TORUS_K = {"1e3": 32, "1e4": 100, "1e5": 316, "1e6": 1000}
NODES = {"1e3": 1000, "1e4": 10000, "1e5": 100000, "1e6": 1000000}


def gen_args(family, size):
    """Arguments of `gen` after the output file (None: not a family)."""
    if family in ("strict", "strict-shuffled"):
        return ["strict", "OUT", SEED] + STRICT_TEAMS[size].split()
    if family == "strict-homog":
        return ["strict-homog", "OUT"] + STRICT_TEAMS[size].split()
    if family in ("torus", "torus-mean"):
        return [family, "OUT", SEED, str(TORUS_K[size])]
    if family == "random":
        return ["random", "OUT", SEED, str(NODES[size]), "2", "4"]
    if family in ("chain", "ladder"):
        return [family, "OUT", str(NODES[size])]
    if family == "ladder-tok-shuffled":
        return ["ladder-tok", "OUT", str(NODES[size])]
    return None


FAMILIES = ["strict", "strict-shuffled", "strict-homog", "torus", "torus-mean", "random",
            "chain", "ladder", "ladder-tok-shuffled"]


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout after %d s" % timeout
    if p.returncode != 0:
        return None, (p.stderr.strip() or "exit status %d" % p.returncode)
    return dict(re.findall(r"(\w+)=(\S+)", p.stdout)), None


def build():
    subprocess.run(["cmake", "-S", HERE, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", BUILD, "-j2"], check=True, stdout=subprocess.DEVNULL)


def graph_file(family, size):
    path = os.path.join(GRAPHS, "%s-%s.txt" % (family, size))
    if not os.path.exists(path):
        args = [a if a != "OUT" else path + ".tmp" for a in gen_args(family, size)]
        if family.endswith("-shuffled"):
            args = ["--shuffle", SEED] + args
        subprocess.run([os.path.join(BUILD, "gen")] + args, check=True)
        os.rename(path + ".tmp", path)
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                n, m = line.split()
                return path, int(n), int(m)


def repeats(n, scale):
    base = 7 if n <= 20000 else 3 if n <= 200000 else 1
    return max(1, int(base * scale))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return "%s, %d cores, %s" % (model, os.cpu_count(), datetime.date.today().isoformat())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--max-size", default=None, help="skip sizes above this (e.g. 1e5)")
    ap.add_argument("--repeat-scale", type=float, default=1.0,
                    help="multiply the number of timed runs (best of k) by this")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per solver run")
    ap.add_argument("--runs", type=int, default=3,
                    help="runs per solver and graph, alternating; the table gives medians")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    families = a.families.split(",")
    for f in families:
        if f not in FAMILIES:
            sys.exit("run.py: unknown family %s (known: %s)" % (f, ", ".join(FAMILIES)))
    sizes = [s for s in a.sizes.split(",")
             if s in SIZES and (a.max_size is None or float(s) <= float(a.max_size))]
    if not a.no_build:
        build()
    os.makedirs(GRAPHS, exist_ok=True)
    lemon = os.path.exists(os.path.join(BUILD, "mcr_lemon"))
    head = ("| family | n | m | Boost s | streamtp s | Boost / streamtp | Howard iterations"
            + (" | LEMON s | LEMON / streamtp" if lemon else "") + " | ratio agrees |")
    rule = "|" + "|".join("---" for _ in range(head.count("|") - 1)) + "|"
    lines = ["Machine: %s, load average %s. Times: medians over %d alternating runs of the best of "
             "k solves (k = %s), the solve only; Boost / streamtp is the median of the per-run "
             "ratios." % (machine(), " ".join("%.2f" % x for x in os.getloadavg()), max(1, a.runs),
                          "7 up to 2e4 nodes, 3 up to 2e5, then 1"), "", head, rule]
    print("\n".join(lines), flush=True)
    failed = False
    for family in families:
        for size in sizes:
            path, n, m = graph_file(family, size)
            k = str(repeats(n, a.repeat_scale))
            use_lemon = lemon and family.endswith("-mean")
            stp = bst = lem = None
            e1 = e2 = e3 = None
            ts_all, tb_all, tl_all, ratios = [], [], [], []
            for _ in range(max(1, a.runs)):
                s1, e1 = run([os.path.join(BUILD, "mcr_stp"), path, k], a.timeout)
                s2, e2 = run([os.path.join(BUILD, "mcr_boost"), path, k], a.timeout)
                s3 = None
                if use_lemon:
                    s3, e3 = run([os.path.join(BUILD, "mcr_lemon"), path, k], a.timeout)
                stp, bst, lem = s1 or stp, s2 or bst, s3 or lem
                if s1:
                    ts_all.append(float(s1["seconds"]))
                if s2:
                    tb_all.append(float(s2["seconds"]))
                if s3:
                    tl_all.append(float(s3["seconds"]))
                if s1 and s2 and float(s1["seconds"]) > 0:
                    ratios.append(float(s2["seconds"]) / float(s1["seconds"]))
                if e1 or e2 or e3:
                    break
            notes = [e for e in (e1, e2, e3) if e]
            agree = "yes"
            if stp and bst and not close(float(stp["ratio"]), float(bst["ratio"])):
                agree = "NO (Boost %s, streamtp %s)" % (bst["ratio"], stp["ratio"])
            if stp and lem and not close(float(stp["ratio"]), float(lem["ratio"])):
                agree = "NO (LEMON %s, streamtp %s)" % (lem["ratio"], stp["ratio"])
            if notes or agree != "yes":
                failed = True
            ts = statistics.median(ts_all) if ts_all else None
            tb = statistics.median(tb_all) if tb_all else None
            cells = [family, str(n), str(m), "%.4g" % tb if tb else e2, "%.4g" % ts if ts else e1,
                     "%.1f" % statistics.median(ratios) if ratios else "-",
                     stp["iterations"] if stp else "-"]
            if lemon:
                tl = statistics.median(tl_all) if tl_all else None
                cells += ["%.4g" % tl if tl else (e3 or "-"),
                          "%.1f" % (tl / ts) if tl and ts else "-"]
            cells.append(agree)
            line = "| " + " | ".join(cells) + " |"
            lines.append(line)
            print(line, flush=True)
    with open(os.path.join(GRAPHS, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
