"""common.py: what every experiment script of notebooks-data/ shares.

An experiment is a script NAME.py next to this file.  `run.sh NAME` runs it as
    python3 NAME.py --streamtp BIN --out DIR [--ci]
and it must: generate its instances with `streamtp generate` (or write them),
evaluate them with `streamtp batch` (or another streamtp command), write
DIR/NAME.csv (the numbers the figure shows) and DIR/NAME.png, put bulky
intermediate files under DIR/raw/, print a short summary, and exit non-zero
when a check of its numbers fails.  --ci asks for a reduced size that runs in
seconds (the ctest `notebooks` test runs every experiment that way).
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # no display: PNG files only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

# Columns of a batch row that hold numbers (README.md, "batch").
NUMERIC = {"paths", "det_throughput", "det_period", "exp_throughput", "exp_period", "lower",
           "upper", "max_cycle_time", "states", "seconds"}


def parse_args(doc):
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--streamtp", required=True, help="the streamtp binary")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--ci", action="store_true", help="reduced size, for the test suite")
    p.add_argument("--jobs", type=int, default=0, help="batch --jobs (default: all cores)")
    a = p.parse_args()
    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    return a


class Streamtp:
    """Runs the streamtp binary; every failure stops the experiment."""

    def __init__(self, args):
        self.bin = args.streamtp
        self.jobs = args.jobs

    def run(self, *argv, ok_status=(0,)):
        r = subprocess.run([self.bin, *map(str, argv)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode not in ok_status:
            sys.exit("streamtp %s failed with status %d:\n%s"
                     % (" ".join(map(str, argv)), r.returncode, r.stderr))
        return r

    def generate(self, out_dir, **options):
        """streamtp generate with --key value options (underscores become dashes)."""
        argv = ["generate", "-o", out_dir]
        for k, v in options.items():
            argv += ["--" + k.replace("_", "-"), v]
        self.run(*argv)

    def batch(self, inputs, csv_path, *options):
        """streamtp batch into csv_path; returns the rows with numbers parsed.
        Rows that failed are kept (status and error say why)."""
        argv = ["batch", *inputs, "-q", "-o", csv_path, *options]
        if self.jobs:
            argv += ["--jobs", self.jobs]
        self.run(*argv, ok_status=(0, 2))
        return read_rows(csv_path)


def read_rows(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in NUMERIC:
                r[k] = float(r[k]) if r.get(k) else None
            rows.append(r)
    return rows


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})


def close(a, b, rtol):
    """|a - b| <= rtol * max(|a|, |b|) (the library's stp__close, no absolute part)."""
    return a is not None and b is not None and abs(a - b) <= rtol * max(abs(a), abs(b))


class Checks:
    """Collects failed checks; finish() prints them and gives the exit status."""

    def __init__(self):
        self.failed = []
        self.count = 0

    def ok(self, cond, what):
        self.count += 1
        if not cond:
            self.failed.append(what)

    def finish(self):
        for w in self.failed[:20]:
            print("CHECK FAILED:", w)
        print("%d/%d checks passed" % (self.count - len(self.failed), self.count))
        return 1 if self.failed else 0


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- the single-communication sweep of figures 13 and 15 -------------------
# Two stages with negligible computations (time 0.001) and one homogeneous
# communication of time 1 (rate lambda = 1) between R1 senders and R2
# receivers: g = gcd(R1, R2) components of a u x v pattern, u = R1/g, v = R2/g.

def uv_sweep(st, out, sizes):
    """Generate the R1 x R2 mappings and evaluate them (auto and ctmc
    exponential methods).  Returns one dict per pair."""
    raw = os.path.join(out, "raw", "patterns")
    for r1 in sizes:
        for r2 in sizes:
            st.generate(raw, teams="%d,%d" % (r1, r2), comp="0.001", comm="1", count=1,
                        prefix="p%d-%d" % (r1, r2))
    auto = st.batch([raw], os.path.join(out, "raw", "auto.csv"))
    ctmc = st.batch([raw], os.path.join(out, "raw", "ctmc.csv"), "--exp-method", "ctmc")
    pairs = []
    for a, c in zip(auto, ctmc):
        r1, r2 = (int(x) for x in a["replication"].split())
        g = math.gcd(r1, r2)
        u, v = r1 // g, r2 // g
        pairs.append({
            "R1": r1, "R2": r2, "g": g, "u": u, "v": v,
            "det": a["det_throughput"],
            "det_formula": g * min(u, v),
            "exp": a["exp_throughput"], "exp_method": a["method"],
            "exp_ctmc": c["exp_throughput"], "ctmc_reason": c["exp_reason"],
            "theorem4": g * u * v / (u + v - 1),
        })
    return pairs


def check_sweep(pairs, checks):
    """The exact values against the closed forms of DESIGN.md 4."""
    for p in pairs:
        tag = "R1=%d R2=%d" % (p["R1"], p["R2"])
        checks.ok(close(p["det"], p["det_formula"], 1e-9),
                  "%s: deterministic %s != g*min(u,v) = %s" % (tag, p["det"], p["det_formula"]))
        checks.ok(close(p["exp"], p["theorem4"], 1e-9),
                  "%s: exponential %s != Theorem 4 %s" % (tag, p["exp"], p["theorem4"]))
        if p["exp_ctmc"] is not None:
            checks.ok(close(p["exp_ctmc"], p["theorem4"], 1e-6),
                      "%s: Markov chain %s != Theorem 4 %s" % (tag, p["exp_ctmc"], p["theorem4"]))
