#!/usr/bin/python3
"""plot-histogram.py: draw the CSV of `streamtp simulate --histogram` (the
intervals between consecutive data-set completions) as a PNG with
matplotlib.  Usage: scripts/plot-histogram.py FILE.csv FILE.png"""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("Usage: ")[1])
    with open(sys.argv[1]) as f:
        title = f.readline().lstrip("# ").strip()
        rows = list(csv.DictReader(f))
    lo = [float(r["bin_low"]) for r in rows]
    width = [float(r["bin_high"]) - float(r["bin_low"]) for r in rows]
    frac = [float(r["fraction"]) for r in rows]
    mean = float(title.split("(mean ")[1].split(")")[0]) if "(mean " in title else None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(lo, frac, width=[w if w > 0 else 1 for w in width], align="edge",
           color="tab:blue", edgecolor="white")
    if mean is not None:
        ax.axvline(mean, color="black", ls="--", label="mean %.6g (the period)" % mean)
        ax.legend()
    ax.set_xlabel("time between consecutive data-set completions")
    ax.set_ylabel("fraction of data sets")
    head, _, tail = title.partition(": intervals")
    ax.set_title(head + "\nintervals" + tail, fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
