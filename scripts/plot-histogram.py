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
    # the density (fraction per time unit), so that the tail's wide bin is
    # not drawn as tall as its count; files of older versions: the fraction
    dens = [float(r["density"] or 0) if "density" in r else float(r["fraction"]) for r in rows]
    tail = [r.get("tail") == "1" for r in rows]
    mean = float(title.split("(mean ")[1].split(")")[0]) if "(mean " in title else None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    widths = [w if w > 0 else 1 for w in width]
    body = [k for k in range(len(rows)) if not tail[k]]
    ax.bar([lo[k] for k in body], [dens[k] for k in body], width=[widths[k] for k in body],
           align="edge", color="tab:blue", linewidth=0)
    for k in (k for k in range(len(rows)) if tail[k]):
        share = float(rows[k]["fraction"])
        ax.bar(lo[k], dens[k], width=widths[k], align="edge", color="tab:orange",
               linewidth=0, label="tail beyond the 99th percentile: %.3g of the data sets" % share)
        # a density this low is invisible: say where the tail bin is
        ax.annotate("tail bin: %.3g of the data sets\nfrom %.6g to %.6g" % (share, lo[k], lo[k] + width[k]),
                    xy=(lo[k] + widths[k] / 2, dens[k]), xytext=(lo[k] + widths[k] / 2, max(dens) * 0.3),
                    ha="center", fontsize=8, arrowprops={"arrowstyle": "->", "color": "tab:orange"})
    if mean is not None:
        ax.axvline(mean, color="black", ls="--", label="mean %.6g (the period)" % mean)
    if mean is not None or any(tail):
        ax.legend()
    ax.set_xlabel("time between consecutive data-set completions")
    ax.set_ylabel("density (fraction of data sets per time unit)")
    head, _, rest = title.partition(": intervals")
    ax.set_title(head + "\nintervals" + rest.replace("; ", "\n"), fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
