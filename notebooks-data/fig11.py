"""fig11.py: the paper's figure 11, spread of the throughput over 500 runs.

The pipeline of figure 10 (common.PIPELINE) with exponential times: 500 runs
of n data sets from an empty system for n = 10, 50, 100, 500, 1000, 5000 and
10000, each giving n / C(n); per n, the minimum, maximum, mean and standard
deviation over the runs.  Two tools, as in the paper (SimGrid and eg_sim):
streamtp simulate (one process per run, seed 1000 * size index + run) and the
(max,+) recurrence of the event graph in Python (common.teg_completions:
numpy, 500 runs at once, each read at every n).

Checks: per n, the two tools' means agree within 4 standard errors and their
standard deviations within 4 standard errors of log(sd) (n >= 100, where the
throughput is close to normal); the standard deviation falls like 1/sqrt(n)
(least-squares slope of log sd against log n over n >= 1000 within 4 standard
errors of -1/2); the mean approaches the exact exponential throughput (eval;
a long run stands in when eval cannot give it): its distance shrinks from n to
every n' >= 10 n.
Writes fig11.csv (one line per n and tool) and fig11.png.
"""
import math
import os

import numpy as np

import common


def stats(values):
    v = np.asarray(values, dtype=float)
    m, sd = v.mean(), v.std(ddof=1)
    kurt = float(np.mean((v - m) ** 4) / np.mean((v - m) ** 2) ** 2)
    # var(log sd) ~ (kurtosis - 1) / (4 K) for K samples (delta method)
    return {"runs": len(v), "min": v.min(), "max": v.max(), "mean": m, "sd": sd,
            "se_mean": sd / math.sqrt(len(v)),
            "se_log_sd": math.sqrt(max(kurt - 1, 0.5) / (4 * len(v)))}


def slope(ns, sds, se):
    """Weighted least-squares slope of log sd against log n, and its standard error."""
    x = np.log(ns)
    w = 1 / np.asarray(se) ** 2
    xm = np.sum(w * x) / np.sum(w)
    sxx = np.sum(w * (x - xm) ** 2)
    b = np.sum(w * (x - xm) * np.log(sds)) / sxx
    return b, 1 / math.sqrt(sxx)


def plot(rows, ref, ref_label, path):
    fig, (ax, bx) = common.plt.subplots(1, 2, figsize=(14, 5.5))
    styles = {"streamtp": ("tab:red", "o", -0.03), "python": ("tab:orange", "^", 0.03)}
    labels = {"streamtp": "streamtp simulate", "python": "event-graph recurrence (Python)"}
    for tool, (color, marker, shift) in styles.items():
        rs = [r for r in rows if r["tool"] == tool]
        n = np.array([r["datasets"] for r in rs], dtype=float) * math.exp(shift)
        ax.errorbar(n, [r["mean"] for r in rs], yerr=[r["sd"] for r in rs], fmt=marker + "-",
                    color=color, mfc="none", capsize=3,
                    label="%s: mean +- standard deviation" % labels[tool])
        ax.plot(n, [r["min"] for r in rs], "v:", color=color, ms=5, label="%s: min, max"
                % labels[tool])
        ax.plot(n, [r["max"] for r in rs], "^:", color=color, ms=5)
        bx.plot(n, [r["sd"] / r["mean"] for r in rs], marker + "-", color=color, mfc="none",
                label="%s: standard deviation / mean" % labels[tool])
    ns = sorted({r["datasets"] for r in rows})
    ax.axhline(ref, color="black", lw=1, label="%s (%.5f)" % (ref_label, ref))
    bx.plot(ns, [1 / math.sqrt(n) for n in ns], "k--", lw=1, label="1/sqrt(n)")
    runs = rows[0]["runs"]
    ax.set_title("Figure 11: min, max, mean of %d runs (exponential times)" % runs)
    bx.set_title("relative standard deviation over %d runs" % runs)
    for a in (ax, bx):
        a.set_xscale("log")
        a.set_xlabel("number of processed data sets n")
        a.grid(alpha=0.3, which="both")
    ax.set_ylabel("throughput n / C(n)")
    bx.set_yscale("log")
    bx.set_ylabel("standard deviation / mean")
    ax.legend(fontsize=7, loc="lower right")
    bx.legend(fontsize=8, loc="upper right")
    common.save(fig, path)


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    path = common.pipeline(st, args.out)
    sizes = [10, 50, 100, 500, 1000, 5000, 10000]
    runs = 500
    if args.ci:
        sizes, runs = sizes[:6], 40
    det, exp, _ = common.evaluate(st, path)
    jobs = [(k, n, 1000 * k + j) for k, n in enumerate(sizes) for j in range(1, runs + 1)]
    values = common.run_parallel(lambda job: common.single_run(st, path, "exp", job[1], job[2]),
                                 jobs, args.jobs)
    streamtp = [stats(values[k * runs:(k + 1) * runs]) for k in range(len(sizes))]
    completions = common.teg_completions(path, "overlap", sizes, "exp", runs=runs, seed=11)
    python = [stats(n / c) for n, c in zip(sizes, completions)]
    if exp is not None:
        ref, ref_label = exp, "exponential throughput, exact"
    else:
        ref = common.simulate(st, path, "exp", "--datasets", 100000 if args.ci else 1000000)
        ref, ref_label = ref["simulation"]["throughput"], "exponential throughput, long run"

    rows = []
    for k, n in enumerate(sizes):
        s, p = streamtp[k], python[k]
        for tool, t in (("streamtp", s), ("python", p)):
            rows.append(dict(t, datasets=n, tool=tool, exact_exp=exp if exp is not None else "",
                             det=det))
        tag = "n=%d" % n
        checks.ok(abs(s["mean"] - p["mean"]) <= 4 * math.hypot(s["se_mean"], p["se_mean"]),
                  "%s: means %.6g (streamtp) and %.6g (Python) differ by more than 4 SE"
                  % (tag, s["mean"], p["mean"]))
        if n >= 100:
            checks.ok(abs(math.log(s["sd"] / p["sd"])) <= 4 * math.hypot(s["se_log_sd"],
                                                                         p["se_log_sd"]),
                      "%s: standard deviations %.4g (streamtp) and %.4g (Python) differ"
                      % (tag, s["sd"], p["sd"]))
    big = [k for k, n in enumerate(sizes) if n >= 1000]
    fits = {}
    for tool, ts in (("streamtp", streamtp), ("python", python)):
        b, se = slope([sizes[k] for k in big], [ts[k]["sd"] for k in big],
                      [ts[k]["se_log_sd"] for k in big])
        fits[tool] = (b, se)
        checks.ok(abs(b + 0.5) <= 4 * se, "%s: sd ~ n^%.3f (+- %.3f), not n^-1/2" % (tool, b, se))
        gap = [abs(t["mean"] - ref) for t in ts]
        for a in range(len(sizes)):
            for c in range(a + 1, len(sizes)):
                if sizes[c] >= 10 * sizes[a]:
                    checks.ok(gap[c] < gap[a], "%s: mean %.3g from the limit at n=%d, %.3g at "
                              "n=%d" % (tool, gap[a], sizes[a], gap[c], sizes[c]))

    common.write_csv(os.path.join(args.out, "fig11.csv"),
                     ["datasets", "tool", "runs", "min", "max", "mean", "sd", "se_mean",
                      "exact_exp", "det"], rows)
    plot(rows, ref, ref_label, os.path.join(args.out, "fig11.png"))
    print("exponential throughput %.6f (%s); %d runs per n" % (ref, ref_label, runs))
    for r in rows:
        print("n=%5d %-8s min %.5f max %.5f mean %.5f (%.2f%% below) sd %.5f (%.2f%%)"
              % (r["datasets"], r["tool"], r["min"], r["max"], r["mean"],
                 100 * (1 - r["mean"] / ref), r["sd"], 100 * r["sd"] / r["mean"]))
    for tool, (b, se) in fits.items():
        print("%s: standard deviation ~ n^%.3f +- %.3f for n >= 1000" % (tool, b, se))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
