"""fig15.py: the paper's figure 15, exponential against deterministic.

The same single homogeneous communication as figure 13 (R1 senders, R2
receivers, R1, R2 in 2..9).  The ratio of the exponential to the
deterministic throughput is max(u, v) / (u + v - 1) with u = R1/g, v = R2/g
and g = gcd(R1, R2): the paper's formula applies to the reduced pattern, so
for R1, R2 not coprime (4 and 6: 3/4) it differs from max(R1, R2) / (R1 + R2
- 1) (6/9).  Both are drawn; streamtp's exact ratio is checked against the
reduced one (1e-9) and lies in (1/2, 1].
Writes fig15.csv (one line per pair) and fig15.png.
"""
import math
import os

import common


def plot(pairs, sizes, path):
    n = len(sizes)
    grid = [[math.nan] * n for _ in range(n)]
    for p in pairs:
        grid[p["R2"] - sizes[0]][p["R1"] - sizes[0]] = p["ratio"]
    fig, (a, b) = common.plt.subplots(1, 2, figsize=(13, 5.4))
    im = a.imshow(grid, origin="lower", cmap="viridis", vmin=0.5, vmax=1.0,
                  extent=(sizes[0] - 0.5, sizes[-1] + 0.5, sizes[0] - 0.5, sizes[-1] + 0.5))
    for p in pairs:
        a.text(p["R1"], p["R2"], "%.3f" % p["ratio"], ha="center", va="center", fontsize=7,
               color="white" if p["ratio"] < 0.8 else "black")
    a.set_xlabel("R1 (senders)")
    a.set_ylabel("R2 (receivers)")
    a.set_title("exponential / deterministic throughput (streamtp, exact)")
    fig.colorbar(im, ax=a)
    cop = [p for p in pairs if p["g"] == 1]
    non = [p for p in pairs if p["g"] > 1]
    b.plot([0.5, 1], [0.5, 1], "k-", lw=0.8, label="y = x")
    b.plot([p["formula"] for p in cop], [p["ratio"] for p in cop], "o", color="tab:blue",
           label="coprime R1, R2: max(u,v)/(u+v-1)")
    b.plot([p["formula"] for p in non], [p["ratio"] for p in non], "s", color="tab:orange",
           label="gcd > 1: max(u,v)/(u+v-1), u = R1/g, v = R2/g")
    b.plot([p["formula_unreduced"] for p in non], [p["ratio"] for p in non], "s", mfc="none",
           color="tab:red", label="gcd > 1: max(R1,R2)/(R1+R2-1) (not the law)")
    b.set_xlabel("formula")
    b.set_ylabel("streamtp: exponential / deterministic")
    b.set_title("against the paper's formula")
    b.legend(fontsize=7, loc="lower right")
    b.grid(alpha=0.3)
    common.save(fig, path)


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    sizes = list(range(2, 5) if args.ci else range(2, 10))
    pairs = common.uv_sweep(st, args.out, sizes)
    common.check_sweep(pairs, checks)
    for p in pairs:
        p["ratio"] = p["exp"] / p["det"]
        p["formula"] = max(p["u"], p["v"]) / (p["u"] + p["v"] - 1)
        p["formula_unreduced"] = max(p["R1"], p["R2"]) / (p["R1"] + p["R2"] - 1)
        checks.ok(common.close(p["ratio"], p["formula"], 1e-9),
                  "R1=%d R2=%d: ratio %r != %r" % (p["R1"], p["R2"], p["ratio"], p["formula"]))
        checks.ok(0.5 < p["ratio"] <= 1 + 1e-12, "R1=%d R2=%d: ratio %r outside (1/2, 1]"
                  % (p["R1"], p["R2"], p["ratio"]))
    common.write_csv(os.path.join(args.out, "fig15.csv"),
                     ["R1", "R2", "g", "u", "v", "det", "exp", "ratio", "formula",
                      "formula_unreduced"], pairs)
    plot(pairs, sizes, os.path.join(args.out, "fig15.png"))
    worst = max(pairs, key=lambda p: abs(p["formula_unreduced"] - p["ratio"]))
    print("%d pairs; ratio from %.4f to %.4f; the unreduced formula is off by up to %.4f "
          "(R1=%d, R2=%d)" % (len(pairs), min(p["ratio"] for p in pairs),
                              max(p["ratio"] for p in pairs),
                              abs(worst["formula_unreduced"] - worst["ratio"]), worst["R1"],
                              worst["R2"]))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
