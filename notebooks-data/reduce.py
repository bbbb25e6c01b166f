"""reduce.py: reduction trees of Canon and Antoniu (RR-7898), Figure 2 and a new figure.

(a), (b): the paper's Figure 2, the ratio of the binomial (a) and Fibonacci (b)
strategies' lengths to the optimal length (Algorithm 1) against n = 2..10^4,
for several d/c (the paper shows d = c for binomial and min(d, c) = 0 for
Fibonacci, its worst cases; we add the others).  Tie-breaks, which the paper
does not state: Algorithm 1 takes the smallest index among equal s_j, and a
machine receives in increasing ready time of its senders, larger index first
on ties.  (c): what the paper could not draw: the exact expected makespan with
exponential times over the deterministic one, E_exp/det, and a gamma law's
(cv 0.5, N.B.U.E.) Monte Carlo mean over det, against n, for the three trees
(d = 1, c = 2), as far as the order-ideal chain fits the default state cap.

Checks: every optimal length equals an independent recomputation of
Algorithm 1 in Python (a heap over exact integers, max s_i) for n <= 2000;
ratios >= 1; binomial <= 1 + min/max (Theorem 18), Fibonacci <= 2 (Theorem
19); the ratio is 1 where Theorems 14 and 17 say the trees are optimal
(binomial at n = 2^k with min(d, c) = 0, Fibonacci at Fibonacci numbers with
d = c); det <= gamma mean <= E_exp (99.9% interval), and an exponential
Monte Carlo run agrees with E_exp (99.9% interval).
Writes reduce.csv (panels a, b: the n where a ratio changes, a step function;
panel c: every n) and reduce.png.
"""
import heapq
import json
import os

import common

RATIOS = [(1, 1), (1, 0), (2, 1), (1, 2), (4, 1)]  # (d, c) pairs, worst cases first
GAMMA = "gamma:cv=0.5"


def sweep(st, tree, d, c, nmax):
    """Deterministic makespans n = 1..nmax of one tree (one incremental sweep)."""
    r = st.run("reduce", "--n", "1..%d" % nmax, "--d", d, "--c", c, "--tree", tree,
               "--exp-method", "none", "--json", "--brief")
    out = {}
    for line in r.stdout.splitlines():
        o = json.loads(line)
        out[o["n"]] = o["deterministic"]["makespan"]
    return out


def alg1_python(nmax, d, c):
    """Algorithm 1 in exact integers: the optimal length max_i s_i for every n."""
    heap, s, best, out = [(0, 1)], {1: 0}, 0, {1: 0}
    for i in range(2, nmax + 1):
        sm, m = heapq.heappop(heap)
        s[i] = sm + c + d
        best = max(best, s[i])
        heapq.heappush(heap, (sm + max(d, c), m))
        heapq.heappush(heap, (s[i], i))
        out[i] = best
    return out


def fibonacci_numbers(limit):
    f = [1, 2]
    while f[-1] + f[-2] <= limit:
        f.append(f[-1] + f[-2])
    return f


def figure2(st, nmax, checks, rows):
    curves = {}
    for d, c in RATIOS:
        opt = sweep(st, "optimal", d, c, nmax)
        ref = alg1_python(min(nmax, 2000), d, c)
        bad = [n for n in ref if opt[n] != ref[n]]
        checks.ok(not bad, "d=%g c=%g: Algorithm 1 differs from Python at n = %s" % (d, c, bad[:5]))
        for tree in ("binomial", "fibonacci"):
            other = sweep(st, tree, d, c, nmax)
            ns = list(range(2, nmax + 1))
            ratio = [other[n] / opt[n] for n in ns]
            limit = 1 + min(d, c) / max(d, c) if tree == "binomial" else 2
            checks.ok(min(ratio) >= 1 - 1e-12, "%s d=%g c=%g: ratio below 1" % (tree, d, c))
            checks.ok(max(ratio) <= limit + 1e-12,
                      "%s d=%g c=%g: ratio %g above %g" % (tree, d, c, max(ratio), limit))
            if tree == "binomial" and min(d, c) == 0:
                k = 1
                while 2 ** k <= nmax:
                    checks.ok(other[2 ** k] == opt[2 ** k], "binomial not optimal at n = 2^%d" % k)
                    k += 1
            if tree == "fibonacci" and d == c:
                for f in fibonacci_numbers(nmax)[1:]:
                    checks.ok(other[f] == opt[f], "fibonacci not optimal at n = %d" % f)
            # The ratio is a step function of n: keep the n where it changes
            # (and the last), which is all the plot (drawn as steps) needs.
            steps = [k for k in range(len(ns)) if k == 0 or k == len(ns) - 1
                     or ratio[k] != ratio[k - 1]]
            curves[(tree, d, c)] = ([ns[k] for k in steps], [ratio[k] for k in steps])
            for k in steps:
                rows.append({"panel": "fig2", "tree": tree, "d": d, "c": c, "n": ns[k],
                             "ratio": ratio[k]})
    return curves


def exp_figure(st, nmax, runs, checks, rows):
    """E_exp/det and the gamma mean / det against n, d = 1, c = 2."""
    curves = {}
    for tree in ("optimal", "binomial", "fibonacci"):
        pts = []
        for n in range(2, nmax + 1):
            base = ["reduce", "--n", n, "--d", 1, "--c", 2, "--tree", tree, "--json"]
            o = json.loads(st.run(*base, "--simulate", runs, "--law", GAMMA, "--seed", n).stdout)
            e = o["exponential"]["makespan"]
            if e is None:
                break
            det, sim = o["deterministic"]["makespan"], o["simulation"]
            half = (sim["ci95"][1] - sim["makespan"]) * 3.29 / 1.96
            checks.ok(det * (1 - 1e-9) <= sim["makespan"] + half and sim["makespan"] - half <= e * (1 + 1e-9),
                      "%s n=%d: gamma mean %g outside [%g, %g]" % (tree, n, sim["makespan"], det, e))
            x = json.loads(st.run("reduce", "--n", n, "--d", 1, "--c", 2, "--tree", tree, "--json",
                                  "--exp-method", "none", "--simulate", runs, "--seed",
                                  1000 + n).stdout)["simulation"]
            hx = (x["ci95"][1] - x["makespan"]) * 3.29 / 1.96
            checks.ok(abs(x["makespan"] - e) <= hx, "%s n=%d: exponential Monte Carlo %g, exact %g"
                      % (tree, n, x["makespan"], e))
            pts.append((n, e / det, sim["makespan"] / det, o["exponential"]["states"]))
            rows.append({"panel": "exp", "tree": tree, "d": 1, "c": 2, "n": n,
                         "ratio": e / det, "gamma_ratio": sim["makespan"] / det,
                         "states": o["exponential"]["states"]})
        checks.ok(len(pts) >= 4, "%s: exact exponential for fewer than 5 elements" % tree)
        curves[tree] = pts
    return curves


def plot(fig2, expc, path, ci):
    fig, ax = common.plt.subplots(1, 3, figsize=(16, 4.8))
    for k, tree in enumerate(("binomial", "fibonacci")):
        for d, c in RATIOS:
            ns, ratio = fig2[(tree, d, c)]
            ax[k].plot(ns, ratio, lw=0.7, drawstyle="steps-post", label="d=%g, c=%g" % (d, c))
        ax[k].set_xscale("log")
        ax[k].set_xlabel("n (elements)")
        ax[k].set_ylabel("%s length / optimal length" % tree)
        ax[k].set_title("(%s) %s strategy" % ("ab"[k], tree))
        ax[k].legend(fontsize=8)
    for tree, pts in expc.items():
        ns = [p[0] for p in pts]
        line, = ax[2].plot(ns, [p[1] for p in pts], marker="o", label="%s: E_exp / det" % tree)
        ax[2].plot(ns, [p[2] for p in pts], marker="x", ls="--", color=line.get_color(),
                   label="%s: %s mean / det" % (tree, GAMMA))
    ax[2].set_xlabel("n (elements)")
    ax[2].set_ylabel("expected makespan / deterministic makespan")
    ax[2].set_title("(c) exponential and gamma times, d = 1, c = 2")
    ax[2].legend(fontsize=7)
    fig.suptitle("Reduction trees (RR-7898), Figure 2 and beyond. Ties: Algorithm 1 takes the "
                 "smallest index; receptions in increasing ready time, larger index first%s"
                 % (" (CI size)" if ci else ""), fontsize=9)
    common.save(fig, path)


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    rows = []
    nmax, exp_n, runs = (500, 9, 4000) if args.ci else (10000, 40, 40000)
    fig2 = figure2(st, nmax, checks, rows)
    expc = exp_figure(st, exp_n, runs, checks, rows)
    common.write_csv(os.path.join(args.out, "reduce.csv"),
                     ["panel", "tree", "d", "c", "n", "ratio", "gamma_ratio", "states"], rows)
    plot(fig2, expc, os.path.join(args.out, "reduce.png"), args.ci)
    for (tree, d, c), (ns, ratio) in sorted(fig2.items()):
        print("%-9s d=%g c=%g: worst ratio %.4f at n = %d" % (tree, d, c, max(ratio),
                                                                 ns[ratio.index(max(ratio))]))
    for tree, pts in expc.items():
        if not pts:
            continue
        print("%-9s exact exponential up to n = %d (%d order ideals): E_exp/det %.3f, gamma %.3f"
              % (tree, pts[-1][0], pts[-1][3], pts[-1][1], pts[-1][2]))
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
