"""fig17.py: the paper's figure 17, laws that are not N.B.U.E.

The set-up of figure 16 (common.law_sweep) with laws that are not N.B.U.E.:
hyperexponential (cv 1.5, 3), gamma and Weibull with cv 2 (decreasing failure
rate), log-normal (cv 0.5, 1, 2), next to the bounds (det, exp).

Checks: streamtp's bounds equal the closed forms (1e-9); no law lies above the
deterministic throughput (99.9% interval; Jensen, see common.check_law_bounds);
as the paper reports, the throughput can fall on either side of the
exponential one: some law lies below it (99.9% interval) on some pattern, and
some law that is not N.B.U.E. lies strictly inside the bounds; streamtp flags
every law but det and exp as not N.B.U.E.
Writes fig17.csv (one line per pattern and law) and fig17.png.
"""
import os

import common

LAWS = ["det", "exp", "hyperexp:cv=1.5", "hyperexp:cv=3", "gamma:cv=2", "weibull:cv=2",
        "lognormal:cv=0.5", "lognormal:cv=1", "lognormal:cv=2"]


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    rows = common.law_sweep(st, args, LAWS)
    common.check_law_bounds(rows, checks)
    others = [r for r in rows if r["law"] not in ("det", "exp")]
    for r in others:
        checks.ok(r["nbue"] is False, "%dx%d %s: streamtp flags the law N.B.U.E. (%r)"
                  % (r["R1"], r["R2"], r["law"], r["nbue"]))
    below = sorted({r["law"] for r in others if r["position"] == "below"})
    inside = sorted({r["law"] for r in others
                     if r["ci999_low"] > r["exp"] and r["ci999_high"] < r["det"]})
    checks.ok(bool(below), "no law falls below the exponential bound")
    checks.ok(bool(inside), "no law that is not N.B.U.E. lies strictly within the bounds")
    common.write_csv(os.path.join(args.out, "fig17.csv"), common.LAW_FIELDS, rows)
    common.plot_laws(rows, LAWS, "Figure 17: laws that are not N.B.U.E., R1 x R2 coprime "
                     "in 2..9%s" % (" (CI size)" if args.ci else ""),
                     os.path.join(args.out, "fig17.png"))
    for law in LAWS:
        rs = [r for r in rows if r["law"] == law]
        print("%-18s position within the bounds: %.3f .. %.3f; below the exponential bound "
              "on %d of %d patterns" % (law, min(r["relative"] for r in rs),
                                        max(r["relative"] for r in rs),
                                        sum(r["position"] == "below" for r in rs), len(rs)))
    print("below the exponential bound: %s; strictly within the bounds: %s"
          % (", ".join(below) or "none", ", ".join(inside) or "none"))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
