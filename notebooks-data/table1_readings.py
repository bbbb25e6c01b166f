"""table1_readings.py: Table 1 under several readings of the paper's protocol.

The paper (section 7.1) says only that processor speeds, link bandwidths and
"the number of processors computing the same stage" were "randomly chosen
uniformly within the ranges".  This script counts the mappings without a
critical resource under several readings, each a streamtp generate option:

- team sizes (--team-sizes): composition (the default: a uniform split of M,
  every processor used), fit (uniform among the size vectors with sum <= M,
  processors may stay unused), independent (each size uniform in 1..M/N),
  sequential (stage by stage in what is left);
- one computation time per stage instead of per processor (--comp-per stage);
- communication times per link (generate's default), per pair of stages
  (--comm-per transfer), or per processor, the time of its private link as in
  a SimGrid cluster, p -> q taking the slower of p's and q's (--comm-per
  processor, the reading table1.py uses), alone and with two team-size
  readings.

Labels name the communication times first, then the team sizes.  Each reading
is run on 10 independent tables of the paper's size (seeds 100 * family +
size + 10000 * table; table 0 of "per processor, composition" is table1.py's
table); per family and model: the mean, minimum and maximum count over the
tables, the pooled rate, and the probability, under that rate, of a count at
least as far from the mean as the paper's (binomial, one-sided); per reading,
the log10-likelihood of the paper's 12 counts under the pooled rates (smoothed:
(count + 1/2) / (instances + 1), so that a zero rate is not -inf).

Checks: on table 0 of every reading, M_ct recomputed from the files equals
streamtp's and no period is below it (as table1.py); the team sizes follow the
reading (the mean first team size within 4 standard deviations of the mean of
its exact law, from the combinatorics of each reading; every processor used
where the reading uses them all); with one time per transfer, Overlap always
has a critical resource (homogeneous components, docs/design.md 3-4); no row fails.
Writes table1_readings.csv (one line per reading, family and model) and
table1_readings.png.
"""
import json
import math
import os

import common
import table1

READINGS = [
    ("per link, composition (generate's default)", {}),
    ("per link, fit", {"team_sizes": "fit"}),
    ("per link, independent", {"team_sizes": "independent"}),
    ("per link, sequential", {"team_sizes": "sequential"}),
    ("per link, comp per stage", {"comp_per": "stage"}),
    ("per transfer", {"comm_per": "transfer"}),
    ("per processor, composition (table1.py)", {"comm_per": "processor"}),
    ("per processor, fit", {"comm_per": "processor", "team_sizes": "fit"}),
    ("per processor, sequential", {"comm_per": "processor", "team_sizes": "sequential"}),
]
TABLES = 10


def first_team_law(reading, n, m):
    """The law of R_1 under the reading, {size: probability}, from the
    combinatorics of each reading (n >= 2)."""
    how = READINGS[reading][1].get("team_sizes", "composition")
    if how == "composition":  # the other n - 1 parts split m - r: C(m-r-1, n-2) ways
        return {r: math.comb(m - r - 1, n - 2) / math.comb(m - 1, n - 1)
                for r in range(1, m - n + 2)}
    if how == "fit":  # compositions of m + 1 into n + 1 parts
        return {r: math.comb(m - r, n - 1) / math.comb(m, n) for r in range(1, m - n + 2)}
    k = m // n if how == "independent" else m - n + 1
    return {r: 1 / k for r in range(1, k + 1)}


def binom_tail(k, n, p, upper):
    """P(X >= k) if upper else P(X <= k), X ~ Binomial(n, p)."""
    if p <= 0:
        return 1.0 if (not upper or k <= 0) else 0.0
    if p >= 1:
        return 1.0 if (upper or k >= n) else 0.0
    ks = range(k, n + 1) if upper else range(0, k + 1)
    return sum(math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
                        + j * math.log(p) + (n - j) * math.log1p(-p)) for j in ks)


def binom_log10(k, n, p):
    """log10 P(X = k), X ~ Binomial(n, p), 0 < p < 1."""
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p)) / math.log(10)


def run_table(st, args, r, t, per_size):
    """One table of the reading: the rows of every family (batch, both models)."""
    label, opts = READINGS[r]
    rows = {}
    for k, fam in enumerate(table1.FAMILIES, 1):
        _, sizes, comp, comm = fam[:4]
        root = os.path.join(args.out, "raw", "reading%d" % r, "table%d" % t, "family%d" % k)
        for s, (n, m) in enumerate(sizes):
            st.generate(os.path.join(root, "%dx%d" % (n, m)), stages=n, processors=m, comp=comp,
                        comm=comm, count=per_size(fam), seed=100 * k + s + 10000 * t, **opts)
        rows[k] = st.batch([root], root + ".csv", "--model", "both", "--exp-method", "none")
    return rows


def check_table(r, rows, checks):
    """Table 0 of a reading: M_ct from the files, team sizes against the reading."""
    label, opts = READINGS[r]
    for k, fam in enumerate(table1.FAMILIES, 1):
        by_size = {}
        for row in rows[k]:
            checks.ok(row["status"] == "OK", "%s: %s %s failed: %s"
                      % (label, row["file"], row["model"], row["error"]))
            if row["status"] != "OK":
                continue
            mct = table1.mct(table1.cycle_times(row["file"]), row["model"])
            checks.ok(common.close(mct, row["deterministic.max_cycle_time"], 1e-9), "%s: %s %s: M_ct %r, "
                      "streamtp %r" % (label, row["file"], row["model"], mct,
                                       row["deterministic.max_cycle_time"]))
            checks.ok(row["deterministic.period"] >= row["deterministic.max_cycle_time"] * (1 - 1e-9),
                      "%s: %s %s: period below M_ct" % (label, row["file"], row["model"]))
            if row["model"] == "overlap":
                m = json.load(open(row["file"]))
                by_size.setdefault((len(m["stages"]), len(m["processors"])), []).append(
                    [len(team) for team in m["mapping"]])
        for (n, m), teams in by_size.items():
            first = [t[0] for t in teams]
            law = first_team_law(r, n, m)
            checks.ok(common.close(sum(law.values()), 1, 1e-12), "%s: the law of R_1 for %dx%d"
                      " sums to %r" % (label, n, m, sum(law.values())))
            want = sum(x * p for x, p in law.items())
            sd = math.sqrt(sum((x - want) ** 2 * p for x, p in law.items()))
            mean = sum(first) / len(first)
            checks.ok(abs(mean - want) <= 4 * sd / math.sqrt(len(first)) and
                      all(x in law for x in first),
                      "%s, %d stages on %d processors: mean first team %.3f, expected %.3f "
                      "(sd %.3f)" % (label, n, m, mean, want, sd))
            if opts.get("team_sizes", "composition") in ("composition", "sequential"):
                checks.ok(all(sum(t) == m for t in teams), "%s, %dx%d: a processor is unused"
                          % (label, n, m))
            else:
                checks.ok(all(sum(t) <= m for t in teams), "%s, %dx%d: teams exceed M"
                          % (label, n, m))


def plot(table, path, ci):
    fig, axes = common.plt.subplots(1, 2, figsize=(16, 6.5))
    fams = [f[0] for f in table1.FAMILIES]
    width = 0.85 / len(READINGS)
    for ax, model in zip(axes, table1.MODELS):
        for r, (label, _) in enumerate(READINGS):
            rs = [x for x in table if x["model"] == model and x["reading"] == label]
            xs = [i + (r - (len(READINGS) - 1) / 2) * width for i in range(len(fams))]
            ax.bar(xs, [x["mean"] for x in rs], width, color="C%d" % r,
                   label="%s (log10 L = %.0f)" % (label, rs[0]["reading_log10_lik"]),
                   yerr=[[x["mean"] - x["min"] for x in rs], [x["max"] - x["mean"] for x in rs]],
                   capsize=2, error_kw={"lw": 0.8})
        paper = [x["paper"] for x in table
                 if x["model"] == model and x["reading"] == READINGS[0][0]]
        ax.hlines(paper, [i - 0.45 for i in range(len(fams))],
                  [i + 0.45 for i in range(len(fams))], colors="black", lw=2.5, label="paper")
        ax.set_xticks(range(len(fams)))
        ax.set_xticklabels(fams, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("mappings without a critical resource (per table of the paper's size)")
        ax.set_title("%s model: mean (bars) and range (whiskers) over %d tables%s"
                     % (model.capitalize(), table[0]["tables"], " (CI size)" if ci else ""))
        ax.grid(alpha=0.3, axis="y")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8,
               title="reading of the protocol: communication times, team sizes (log10-likelihood "
                     "of the paper's table)", title_fontsize=8)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.savefig(path, dpi=110)
    common.plt.close(fig)


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    tables = 1 if args.ci else TABLES

    def per_size(fam):
        return 4 if args.ci else fam[4] // len(fam[1])

    table = []
    for r, (label, opts) in enumerate(READINGS):
        counts = {}  # (family, model) -> count per table
        for t in range(tables):
            rows = run_table(st, args, r, t, per_size)
            if t == 0:
                check_table(r, rows, checks)
            for k in rows:
                for model in table1.MODELS:
                    counts.setdefault((k, model), []).append(sum(
                        1 for x in rows[k] if x["model"] == model and x["status"] == "OK"
                        and not x["deterministic.critical_resource"]))
        for k, fam in enumerate(table1.FAMILIES, 1):
            n = per_size(fam) * len(fam[1])
            for model in table1.MODELS:
                c = counts[(k, model)]
                paper = fam[5] if model == "overlap" else fam[6]
                rate = sum(c) / (n * len(c))
                mean = sum(c) / len(c)
                upper = paper * n / fam[4] > mean  # the paper's count, scaled to n
                table.append({
                    "reading": label, "options": " ".join(
                        "--%s %s" % (o.replace("_", "-"), v) for o, v in opts.items()),
                    "family": fam[0], "model": model, "instances": n, "tables": len(c),
                    "mean": mean, "min": min(c), "max": max(c), "rate": rate,
                    "paper": paper, "paper_instances": fam[4],
                    "p_paper": binom_tail(paper, fam[4], rate, upper),
                    "log10_lik": binom_log10(paper, fam[4], (sum(c) + 0.5) / (n * len(c) + 1)),
                    "counts": " ".join(map(str, c))})
                if opts.get("comm_per") == "transfer" and model == "overlap":
                    checks.ok(sum(c) == 0, "%s: %s: %d Overlap mappings without a critical "
                              "resource with homogeneous transfers" % (label, fam[0], sum(c)))
    for row in table:
        row["reading_log10_lik"] = sum(x["log10_lik"] for x in table
                                       if x["reading"] == row["reading"])
    fields = ["reading", "options", "family", "model", "instances", "tables", "mean", "min",
              "max", "rate", "paper", "paper_instances", "p_paper", "log10_lik",
              "reading_log10_lik", "counts"]
    common.write_csv(os.path.join(args.out, "table1_readings.csv"), fields, table)
    plot(table, os.path.join(args.out, "table1_readings.png"), args.ci)
    for model in table1.MODELS:
        print("%s: mean count per table [min..max] (paper; probability of the paper's count)"
              % model)
        for label, _ in READINGS:
            rs = [x for x in table if x["model"] == model and x["reading"] == label]
            print("  %-44s %s" % (label, "  ".join(
                "%5.1f [%d..%d] (%d; %.0e)" % (x["mean"], x["min"], x["max"], x["paper"],
                                               x["p_paper"]) for x in rs)))
    print("log10-likelihood of the paper's table under each reading:")
    for label, _ in sorted(READINGS, key=lambda x: -next(
            r["reading_log10_lik"] for r in table if r["reading"] == x[0])):
        print("  %-44s %8.1f" % (label, next(r["reading_log10_lik"] for r in table
                                               if r["reading"] == label)))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
