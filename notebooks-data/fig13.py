"""fig13.py: the paper's figure 13, one homogeneous communication.

Two stages with negligible computations (time 0.001) replicated R1 and R2
times, R1, R2 in 2..9, linked by a communication of time 1 on every link.
For each pair: the deterministic throughput (exact: Howard on the folded
pattern), the exponential one (Theorem 4 closed form, streamtp's default),
the Markov chain of the pattern (--exp-method ctmc) where streamtp can
solve it, and, in place of the paper's SimGrid runs, streamtp simulate with
constant and with exponential times (10^6 data sets after a warm-up of 10^5,
20 batch means, seed 1), all normalised to the deterministic throughput as in
the paper.

Checks: deterministic = g min(u, v) and exponential = g uv / (u + v - 1)
(docs/design.md 4) within 1e-9, the Markov chain within 1e-6; each simulated
throughput holds the exact one (Theorem 4, g min(u, v)) in its 99.9% interval
(or within 1e-9 when the interval is narrower).
Writes fig13.csv (one line per pair) and fig13.png.
"""
import os

import common


def plot(pairs, sizes, path):
    fig, axes = common.plt.subplots(2, 4, figsize=(15, 7), sharey=True)
    for ax, r1 in zip(axes.flat, sizes):
        ps = [p for p in pairs if p["R1"] == r1]
        x = [p["R2"] for p in ps]
        ax.plot(x, [1.0] * len(x), "k-", label="deterministic (Howard)")
        ax.plot(x, [p["theorem4"] / p["det_formula"] for p in ps], "--", color="tab:orange",
                label="Theorem 4")
        ax.plot(x, [p["exp"] / p["det"] for p in ps], "o", color="tab:blue", mfc="none",
                label="exponential (streamtp)")
        ax.plot(x, [p["sim_det"] / p["det"] for p in ps], "s", color="gray", ms=4,
                label="simulated, constant (streamtp simulate)")
        ax.errorbar(x, [p["sim_exp"] / p["det"] for p in ps],
                    yerr=[[(p["sim_exp"] - p["sim_exp_lo"]) / p["det"] for p in ps],
                          [(p["sim_exp_hi"] - p["sim_exp"]) / p["det"] for p in ps]],
                    fmt=".", color="tab:red", ms=5, capsize=2,
                    label="simulated, exponential (95% interval)")
        ch = [p for p in ps if p["exp_ctmc"] is not None]
        if ch:
            ax.plot([p["R2"] for p in ch], [p["exp_ctmc"] / p["det"] for p in ch], "x",
                    color="tab:green", label="exponential (Markov chain)")
        ax.set_title("R1 = %d senders" % r1)
        ax.set_xlabel("R2 (receivers)")
        ax.set_ylim(0.45, 1.05)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(sizes):]:
        ax.axis("off")
    axes[0][0].set_ylabel("throughput / deterministic throughput")
    axes[1][0].set_ylabel("throughput / deterministic throughput")
    axes[0][0].legend(fontsize=7, loc="lower left")
    common.save(fig, path)


def simulate_pairs(st, args, pairs, checks):
    """Constant and exponential simulations of every pair, checked against
    the exact values."""
    datasets = 100000 if args.ci else 1000000
    jobs = [(p, law) for p in pairs for law in ("det", "exp")]
    res = common.run_parallel(
        lambda job: common.simulate(st, job[0]["file"], job[1], "--datasets", datasets,
                                    "--no-bounds"), jobs, args.jobs)
    for (p, law), r in zip(jobs, res):
        exact = p["det_formula"] if law == "det" else p["theorem4"]
        lo, hi = common.interval(r, 0.999)
        p["sim_" + law] = r["simulation"]["throughput"]
        p["sim_%s_lo" % law], p["sim_%s_hi" % law] = r["simulation"]["ci95"]
        checks.ok(common.contains((lo, hi), exact, 1e-9),
                  "R1=%d R2=%d: simulated %s %.6g, 99.9%% interval [%.6g, %.6g], exact %.6g"
                  % (p["R1"], p["R2"], law, r["simulation"]["throughput"], lo, hi, exact))


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    sizes = range(2, 5) if args.ci else range(2, 10)
    pairs = common.uv_sweep(st, args.out, sizes)
    common.check_sweep(pairs, checks)
    simulate_pairs(st, args, pairs, checks)
    for p in pairs:
        p["exp_over_det"] = p["exp"] / p["det"]
    common.write_csv(os.path.join(args.out, "fig13.csv"),
                     ["R1", "R2", "g", "u", "v", "det", "det_formula", "exp", "exp_method",
                      "theorem4", "exp_ctmc", "ctmc_reason", "exp_over_det", "sim_det",
                      "sim_det_lo", "sim_det_hi", "sim_exp", "sim_exp_lo", "sim_exp_hi"], pairs)
    plot(pairs, list(sizes), os.path.join(args.out, "fig13.png"))
    dev = [abs(p["sim_exp"] / p["theorem4"] - 1) for p in pairs]
    print("simulated exponential / Theorem 4: largest deviation %.3f%%, mean %.3f%%; "
          "simulated constant / exact: largest deviation %.2g"
          % (100 * max(dev), 100 * sum(dev) / len(dev),
             max(abs(p["sim_det"] / p["det"] - 1) for p in pairs)))
    solved = sum(p["exp_ctmc"] is not None for p in pairs)
    print("%d pairs; exponential/deterministic from %.4f to %.4f; Markov chain solved for %d"
          % (len(pairs), min(p["exp_over_det"] for p in pairs),
             max(p["exp_over_det"] for p in pairs), solved))
    if solved < len(pairs):
        print("Markov chain not solved for %d pairs: %s"
              % (len(pairs) - solved, next(p["ctmc_reason"] for p in pairs
                                           if p["exp_ctmc"] is None)))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
