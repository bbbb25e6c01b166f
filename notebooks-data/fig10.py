"""fig10.py: the paper's figure 10, throughput against the number of data sets.

The 7-stage pipeline of common.PIPELINE (stages replicated 1, 3, 4, 5, 6, 7, 1
times), constant and exponential times.  For each n, the throughput of one run
of n data sets from an empty system, n / C(n) (the paper's definition: data
sets processed over total time), by two tools, as the paper uses SimGrid and
eg_sim: streamtp simulate (a run of n data sets per n, seed 1) and the
(max,+) recurrence of the event graph in Python (common.teg_completions,
Python's generator: one run, read at every n).  The limits are eval's exact
throughputs (exponential: closed form here; when eval cannot give it, the 99.9%
interval of a long run stands in).

Checks: the constant runs of both tools agree to 1e-9 at every n, and their
error falls like 1/n; a long exponential run (batch means) holds the exact
exponential throughput in its 99.9% interval; for n >= 1000 every exponential
run is within 4 standard deviations of it (the deviation of an n-run estimated
from the long run's batches) plus twice the constant run's transient error.
Writes fig10.csv (one line per n) and fig10.png.
"""
import math
import os

import common


def plot(rows, det, ref, ref_label, exp_exact, path):
    fig, (ax, bx) = common.plt.subplots(1, 2, figsize=(14, 5.5))
    n = [r["datasets"] for r in rows]
    curves = [("det_streamtp", "o-", "tab:blue", "constant times, streamtp simulate"),
              ("det_python", "x", "navy", "constant times, event-graph recurrence (Python)"),
              ("exp_streamtp", "s-", "tab:red", "exponential times, streamtp simulate (seed 1)"),
              ("exp_python", "^--", "tab:orange",
               "exponential times, event-graph recurrence (Python)")]
    for key, style, color, label in curves:
        ax.plot(n, [r[key] for r in rows], style, color=color, mfc="none", ms=7, label=label)
        lim = det if key.startswith("det") else ref
        bx.plot(n, [abs(r[key] / lim - 1) for r in rows], style, color=color, mfc="none", ms=7,
                label=label)
    if common.close(ref, det, 1e-9):
        ax.axhline(det, color="black", lw=1,
                   label="theoretical throughput, constant = exponential (%.5f)" % det)
    else:
        ax.axhline(det, color="black", lw=1, label="theoretical throughput, constant (%.5f)" % det)
        ax.axhline(ref, color="gray", ls=":", label="%s (%.5f)" % (ref_label, ref))
    ax.set_xscale("log")
    ax.set_xlabel("number of processed data sets n")
    ax.set_ylabel("throughput n / C(n) (data sets per time unit)")
    ax.set_title("Figure 10: 7 stages replicated 1, 3, 4, 5, 6, 7, 1 (Overlap)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    x = [n[0], n[-1]]
    e0 = abs(rows[0]["det_streamtp"] / det - 1)
    bx.plot(x, [e0 * n[0] / v for v in x], "k:", lw=1, label="slope 1/n")
    bx.plot(x, [1 / math.sqrt(v) for v in x], "k--", lw=1, label="1/sqrt(n)")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("number of processed data sets n")
    bx.set_ylabel("|throughput / limit - 1|")
    bx.set_title("distance to the limit (%s)" % ("exact throughputs" if exp_exact
                                                   else "exponential: long run"))
    bx.grid(alpha=0.3, which="both")
    bx.legend(fontsize=8, loc="lower left")
    common.save(fig, path)


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    path = common.pipeline(st, args.out)
    sizes = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000]
    if args.ci:
        sizes = sizes[:9]
    det, exp, _ = common.evaluate(st, path)
    runs = common.run_parallel(lambda job: common.single_run(st, path, job[0], job[1], 1),
                               [(law, n) for law in ("det", "exp") for n in sizes], args.jobs)
    det_py = common.teg_completions(path, "overlap", sizes, "det")
    exp_py = common.teg_completions(path, "overlap", sizes, "exp", seed=1)
    long_run = common.simulate(st, path, "exp", "--datasets", 100000 if args.ci else 1000000)
    ci999 = common.interval(long_run, 0.999)
    ref, ref_label = (exp, "exponential, exact") if exp is not None else (
        long_run["simulation"]["throughput"], "exponential, long run (no exact value)")
    rows = []
    for k, n in enumerate(sizes):
        rows.append({"datasets": n, "det_streamtp": runs[k], "det_python": n / det_py[k],
                     "exp_streamtp": runs[len(sizes) + k], "exp_python": n / exp_py[k],
                     "det_exact": det, "exp_exact": exp if exp is not None else "",
                     "exp_long_run": long_run["simulation"]["throughput"]})

    # Constant times: two independent recurrences, then the 1/n convergence.
    for r in rows:
        checks.ok(common.close(r["det_streamtp"], r["det_python"], 1e-9),
                  "n=%d: streamtp %r, Python %r (constant times)"
                  % (r["datasets"], r["det_streamtp"], r["det_python"]))
    err = [abs(r["det_streamtp"] / det - 1) for r in rows]
    for a in range(len(sizes)):
        for b in range(a + 1, len(sizes)):
            if sizes[a] >= 1000 and sizes[b] >= 10 * sizes[a]:
                checks.ok(err[b] * sizes[b] <= 2 * err[a] * sizes[a],
                          "constant times: error %.3g at n=%d, %.3g at n=%d: not like 1/n"
                          % (err[a], sizes[a], err[b], sizes[b]))
    # Exponential times.
    if exp is not None:
        checks.ok(common.contains(ci999, exp, 1e-12),
                  "long exponential run: 99.9%% interval [%.6g, %.6g] misses the exact %.6g"
                  % (ci999[0], ci999[1], exp))
    else:
        checks.ok(ci999[0] <= det * (1 + 1e-12), "long exponential run above the deterministic "
                  "throughput: %r > %r" % (ci999[0], det))
    per_batch = long_run["simulation"]["datasets"] / long_run["simulation"]["batches"]
    for k, r in enumerate(rows):
        if r["datasets"] < 1000:
            continue
        sigma = long_run["simulation"]["stddev"] * math.sqrt(per_batch / r["datasets"])
        allowed = 4 * sigma + 2 * err[k] * det
        for tool in ("exp_streamtp", "exp_python"):
            checks.ok(abs(r[tool] - ref) <= allowed,
                      "n=%d: %s %.6g is %.3g from %.6g (allowed %.3g)"
                      % (r["datasets"], tool, r[tool], abs(r[tool] - ref), ref, allowed))

    common.write_csv(os.path.join(args.out, "fig10.csv"),
                     ["datasets", "det_streamtp", "det_python", "exp_streamtp", "exp_python",
                      "det_exact", "exp_exact", "exp_long_run"], rows)
    plot(rows, det, ref, ref_label, exp is not None, os.path.join(args.out, "fig10.png"))
    print("deterministic %.6f, exponential %s (long run %.6f, 99.9%% CI [%.6f, %.6f])"
          % (det, "%.6f" % exp if exp is not None else "not available", long_run["simulation"]["throughput"],
             ci999[0], ci999[1]))
    for r in rows:
        print("n=%6d  constant %.6f (%.2f%% below)  exponential %.6f / %.6f (streamtp / Python)"
              % (r["datasets"], r["det_streamtp"], 100 * (1 - r["det_streamtp"] / det),
                 r["exp_streamtp"], r["exp_python"]))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
