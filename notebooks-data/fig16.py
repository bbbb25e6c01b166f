"""fig16.py: the paper's figure 16, N.B.U.E. laws between the bounds.

One homogeneous communication between negligible computations (figures 13-15),
for the coprime team sizes R1 < R2 in 2..9 (common.law_sweep), simulated with
N.B.U.E. laws of the same means (10^6 data sets, 20 batch means, seed 1):
uniform, Erlang, gamma and Weibull with cv 0.5, normal (truncated at 0; the
paper's "Gauss"), symmetric beta (the paper's "Beta X", shape X), plus the two
bounds themselves (det, exp).

Checks: streamtp's bounds equal the closed forms (1e-9); every law's 99.9%
interval meets [exponential, deterministic] (Theorem 7) and none lies above the
deterministic throughput; exp holds Theorem 4 in its interval, det gives the
deterministic throughput; streamtp flags every law N.B.U.E.
Writes fig16.csv (one line per pattern and law) and fig16.png.
"""
import os

import common

LAWS = ["det", "exp", "uniform:spread=1", "uniform:spread=0.5", "erlang:k=2", "gamma:cv=0.5",
        "weibull:cv=0.5", "normal:cv=0.3", "normal:cv=1", "beta:a=2,b=2", "beta:a=5,b=5"]


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    rows = common.law_sweep(st, args, LAWS)
    common.check_law_bounds(rows, checks)
    for r in rows:
        tag = "%dx%d %s" % (r["R1"], r["R2"], r["law"])
        checks.ok(r["nbue"] is True, "%s: streamtp does not flag the law N.B.U.E." % tag)
        checks.ok(r["position"] == "within", "%s: %.6g, 99.9%% interval [%.6g, %.6g] outside "
                  "[%.6g, %.6g]" % (tag, r["throughput"], r["ci999_low"], r["ci999_high"],
                                    r["exp"], r["det"]))
    common.write_csv(os.path.join(args.out, "fig16.csv"), common.LAW_FIELDS, rows)
    common.plot_laws(rows, LAWS, "Figure 16: N.B.U.E. laws, R1 x R2 coprime in 2..9%s"
                     % (" (CI size)" if args.ci else ""), os.path.join(args.out, "fig16.png"))
    for law in LAWS:
        rel = [r["relative"] for r in rows if r["law"] == law]
        print("%-20s position within the bounds: %.3f .. %.3f over %d patterns"
              % (law, min(rel), max(rel), len(rel)))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
