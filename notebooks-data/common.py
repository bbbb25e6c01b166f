"""common.py: what every experiment script of notebooks-data/ shares.

An experiment is a script NAME.py next to this file.  `run.sh NAME` runs it as
    python3 NAME.py --streamtp BIN --out DIR [--ci]
and it must: generate its instances with `streamtp generate` (or write them),
evaluate them with `streamtp batch` (or another streamtp command), write
DIR/NAME.csv (the numbers the figure shows) and DIR/NAME.png, put bulky
intermediate files under DIR/raw/, print a short summary, and exit non-zero
when a check of its numbers fails.  --ci asks for a reduced size that runs in
seconds (the ctest `notebooks` test runs every experiment that way).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")  # no display: PNG files only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend choice)

# Columns of a batch row that hold numbers (README.md, "batch").
NUMERIC = {"paths", "deterministic.throughput", "deterministic.period",
           "exponential.throughput", "exponential.period", "bounds.lower", "bounds.upper",
           "deterministic.max_cycle_time", "exponential.states", "seconds"}


def parse_args(doc):
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--streamtp", required=True, help="the streamtp binary")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--ci", action="store_true", help="reduced size, for the test suite")
    p.add_argument("--jobs", type=int, default=0, help="batch --jobs (default: all cores)")
    a = p.parse_args()
    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    return a


class Streamtp:
    """Runs the streamtp binary; every failure stops the experiment."""

    def __init__(self, args):
        self.bin = args.streamtp
        self.jobs = args.jobs

    def run(self, *argv, ok_status=(0,)):
        r = subprocess.run([self.bin, *map(str, argv)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode not in ok_status:
            sys.exit("streamtp %s failed with status %d:\n%s"
                     % (" ".join(map(str, argv)), r.returncode, r.stderr))
        return r

    def generate(self, out_dir, **options):
        """streamtp generate with --key value options (underscores become dashes)."""
        argv = ["generate", "-o", out_dir, "--force"]  # the same files again on a rerun
        for k, v in options.items():
            argv += ["--" + k.replace("_", "-"), v]
        self.run(*argv)

    def batch(self, inputs, csv_path, *options):
        """streamtp batch into csv_path; returns the rows with numbers parsed.
        Rows that failed are kept (status and error say why)."""
        argv = ["batch", *inputs, "-q", "-o", csv_path, *options]
        if self.jobs:
            argv += ["--jobs", self.jobs]
        self.run(*argv, ok_status=(0, 2))
        return read_rows(csv_path)


def read_rows(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in NUMERIC:
                r[k] = float(r[k]) if r.get(k) else None
            rows.append(r)
    return rows


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})


def close(a, b, rtol):
    """|a - b| <= rtol * max(|a|, |b|) (the library's stp__close, no absolute part)."""
    return a is not None and b is not None and abs(a - b) <= rtol * max(abs(a), abs(b))


class Checks:
    """Collects failed checks; finish() prints them and gives the exit status."""

    def __init__(self):
        self.failed = []
        self.count = 0

    def ok(self, cond, what):
        self.count += 1
        if not cond:
            self.failed.append(what)

    def finish(self):
        for w in self.failed[:20]:
            print("CHECK FAILED:", w)
        print("%d/%d checks passed" % (self.count - len(self.failed), self.count))
        return 1 if self.failed else 0


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- the single-communication sweep of figures 13 and 15 -------------------
# Two stages with negligible computations (time 0.001) and one homogeneous
# communication of time 1 (rate lambda = 1) between R1 senders and R2
# receivers: g = gcd(R1, R2) components of a u x v pattern, u = R1/g, v = R2/g.

def uv_sweep(st, out, sizes):
    """Generate the R1 x R2 mappings and evaluate them (auto and ctmc
    exponential methods).  Returns one dict per pair."""
    raw = os.path.join(out, "raw", "patterns")
    for r1 in sizes:
        for r2 in sizes:
            st.generate(raw, teams="%d,%d" % (r1, r2), comp="0.001", comm="1", count=1,
                        prefix="p%d-%d" % (r1, r2))
    auto = st.batch([raw], os.path.join(out, "raw", "auto.csv"))
    ctmc = st.batch([raw], os.path.join(out, "raw", "ctmc.csv"), "--exp-method", "ctmc")
    pairs = []
    for a, c in zip(auto, ctmc):
        r1, r2 = (int(x) for x in a["replication"].split())
        g = math.gcd(r1, r2)
        u, v = r1 // g, r2 // g
        pairs.append({
            "R1": r1, "R2": r2, "g": g, "u": u, "v": v, "file": a["file"],
            "det": a["deterministic.throughput"],
            "det_formula": g * min(u, v),
            "exp": a["exponential.throughput"], "exp_method": a["exponential.method"],
            "exp_ctmc": c["exponential.throughput"], "ctmc_reason": c["exponential.reason"],
            "theorem4": g * u * v / (u + v - 1),
        })
    return pairs


def check_sweep(pairs, checks):
    """The exact values against the closed forms of docs/design.md 4."""
    for p in pairs:
        tag = "R1=%d R2=%d" % (p["R1"], p["R2"])
        checks.ok(close(p["det"], p["det_formula"], 1e-9),
                  "%s: deterministic %s != g*min(u,v) = %s" % (tag, p["det"], p["det_formula"]))
        checks.ok(close(p["exp"], p["theorem4"], 1e-9),
                  "%s: exponential %s != Theorem 4 %s" % (tag, p["exp"], p["theorem4"]))
        if p["exp_ctmc"] is not None:
            checks.ok(close(p["exp_ctmc"], p["theorem4"], 1e-6),
                      "%s: Markov chain %s != Theorem 4 %s" % (tag, p["exp_ctmc"], p["theorem4"]))


# ---- simulation runs (figures 10, 11, 13, 16, 17) ---------------------------
# `streamtp simulate --json` gives a throughput with a 95% interval from batch
# means (or replications).  One run of exactly n data sets from an empty
# system, as the paper measures it (n / completion time of the n-th data set),
# is `--warmup 0 --batches 2 --datasets n`: the two batches cover data sets
# 1..n/2 and n/2+1..n, and the estimate, data sets / total time, is n / C(n).

def run_parallel(fn, items, jobs):
    """fn(item) for every item on `jobs` threads (each call runs a process),
    results in item order."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        return list(pool.map(fn, items))


def simulate(st, path, law, *options):
    """streamtp simulate --json on one file: the parsed object."""
    r = st.run("simulate", path, "--law", law, "--json", *options)
    return json.loads(r.stdout)


def single_run(st, path, law, n, seed):
    """The throughput n / C(n) of one run of n data sets (n even) from time 0."""
    return simulate(st, path, law, "--datasets", n, "--batches", 2, "--warmup", 0,
                    "--seed", seed, "--no-bounds")["simulation"]["throughput"]


def evaluate(st, path, model="overlap"):
    """streamtp eval --json: (deterministic, exponential or None, the object)."""
    e = json.loads(st.run("eval", path, "--json", "--model", model).stdout)
    return e["deterministic"]["throughput"], e["exponential"]["throughput"], e


def t_quantile(p, dof):
    """Student's t quantile (1/2 < p < 1), numpy-free (scipy is not in the core
    deps): with t = sqrt(dof) tan(a), the CDF is 1/2 + k * integral of
    cos(x)^(dof-1) over [0, a], a smooth integrand (Simpson), inverted by
    bisection on a."""
    k = math.exp(math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2)) / math.sqrt(math.pi)

    def cdf(a, n=400):
        h = a / n
        f = [math.cos(j * h) ** (dof - 1) for j in range(n + 1)]
        return 0.5 + k * h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))

    lo, hi = 0.0, math.pi / 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return math.sqrt(dof) * math.tan((lo + hi) / 2)


def interval(res, level):
    """The interval of a `simulate --json` result at another confidence level:
    streamtp's is Student's on the group periods, mapped through 1/x, so the
    period half-width is rescaled by the ratio of the t quantiles."""
    sim = res["simulation"]
    groups = sim.get("batches") or sim.get("replications")
    p = 1 / sim["throughput"]
    h = (1 / sim["ci95"][0] - p) * (t_quantile(0.5 + level / 2, groups - 1)
                                    / t_quantile(0.975, groups - 1))
    return 1 / (p + h), (1 / (p - h) if p > h else math.inf)


def contains(lo_hi, x, rtol=0.0):
    """x in [lo, hi], widened by rtol relative (rounding of exact values)."""
    return lo_hi[0] * (1 - rtol) <= x <= lo_hi[1] * (1 + rtol)


# ---- an independent (max,+) recurrence of the event graph --------------------
# Written from docs/design.md 2 without streamtp's kernel (which works per processor
# port, not on the graph): table1.py and figures 10 and 11 check streamtp's
# numbers against it.

def event_graph(path, model):
    """The timed event graph of docs/design.md 2, built here from the file:
    (times, inputs, R) with inputs[t] = [(source, tokens)], transitions
    numbered row by row so that every token-free place goes forward."""
    m = json.load(open(path))
    speed = {p["name"]: p["speed"] for p in m["processors"]}
    bw = {(l["from"], l["to"]): l["bandwidth"] for l in m.get("links", [])}
    st, teams = m["stages"], m["mapping"]
    n = len(teams)
    cols = 2 * n - 1
    rows = 1
    for t in teams:
        rows = rows * len(t) // math.gcd(rows, len(t))
    node = lambda j, c: j * cols + c  # noqa: E731
    times, inputs = [], [[] for _ in range(rows * cols)]
    for j in range(rows):
        for c in range(cols):
            i = c // 2
            p = teams[i][j % len(teams[i])]
            if c % 2 == 0:
                times.append(st[i]["work"] / speed[p])
            else:
                q = teams[i + 1][j % len(teams[i + 1])]
                times.append(st[i]["output"] / bw.get((p, q), m.get("bandwidth", 0)))
            if c > 0:
                inputs[node(j, c)].append((node(j, c - 1), 0))

    def cycle(rs, c_from, c_to):  # p's rows j_1 < ... < j_k, closing place 1 token
        for l, j in enumerate(rs):
            nxt = rs[(l + 1) % len(rs)]
            inputs[node(nxt, c_to)].append((node(j, c_from), 1 if l + 1 == len(rs) else 0))

    for i, team in enumerate(teams):
        for k in range(len(team)):
            rs = list(range(k, rows, len(team)))
            if model == "overlap":
                cycle(rs, 2 * i, 2 * i)
                if i + 1 < n:
                    cycle(rs, 2 * i + 1, 2 * i + 1)
                if i > 0:
                    cycle(rs, 2 * i - 1, 2 * i - 1)
            else:
                cycle(rs, 2 * i + 1 if i + 1 < n else 2 * i, 2 * i - 1 if i > 0 else 2 * i)
    return times, inputs, rows



def teg_completions(path, model, sizes, law="det", runs=1, seed=0):
    """C(n), the time at which data sets 1..n have all completed, for each n
    in sizes, by the recurrence D_t(r) = x_t(r) + max over places (s -> t, k
    tokens) of D_s(r - k) on the graph above (data set r * rows + j is row j
    of round r).  law "det": constant times; "exp": exponential times of the
    same means (Python's or numpy's generator, seeded).  runs = 1: a list of
    floats (plain Python); runs = K > 1: K runs at once, an array
    len(sizes) x K (numpy)."""
    times, inputs, rows = event_graph(path, model)
    cols = len(times) // rows
    rounds = -(-max(sizes) // rows)
    wanted = {n - 1: i for i, n in enumerate(sizes)}  # data set index -> position
    if runs == 1:
        import random
        rng = random.Random(seed)
        prev, done, out = [0.0] * len(times), 0.0, [0.0] * len(sizes)
        for r in range(rounds):
            cur = [0.0] * len(times)
            for t, x in enumerate(times):
                start = 0.0
                for s, k in inputs[t]:
                    v = cur[s] if k == 0 else prev[s]
                    if v > start:
                        start = v
                cur[t] = start + (x if law == "det" else x * rng.expovariate(1.0))
            for j in range(rows):
                done = max(done, cur[j * cols + cols - 1])
                if r * rows + j in wanted:
                    out[wanted[r * rows + j]] = done
            prev = cur
        return out
    import numpy as np
    rng = np.random.default_rng(seed)
    mean = np.array(times)[:, None]
    prev = np.zeros((len(times), runs))
    done = np.zeros(runs)
    out = np.zeros((len(sizes), runs))
    for r in range(rounds):
        cur = mean * (rng.exponential(1.0, (len(times), runs)) if law == "exp"
                      else np.ones((len(times), runs)))
        for t in range(len(times)):
            start = np.zeros(runs)
            for s, k in inputs[t]:
                np.maximum(start, cur[s] if k == 0 else prev[s], out=start)
            cur[t] += start
        for j in range(rows):
            np.maximum(done, cur[j * cols + cols - 1], out=done)
            if r * rows + j in wanted:
                out[wanted[r * rows + j]] = done
        prev = cur
    return out


# ---- the 7-stage pipeline of figures 10 and 11 --------------------------------
# Stages replicated 1, 3, 4, 5, 6, 7 and 1 times (the paper's), computation
# times uniform in 5..15 per processor, every communication of time 5, so that
# the exponential throughput has a closed form (docs/design.md 4).  Seed 10 makes
# one resource the clear bottleneck (P0, 0.111, against 0.143 for the next).

PIPELINE = {"teams": "1,3,4,5,6,7,1", "comp": "5..15", "comm": "5", "seed": 10}


def pipeline(st, out):
    """Write the instance of figures 10 and 11; its path."""
    raw = os.path.join(out, "raw", "pipeline")
    st.generate(raw, count=1, prefix="pipeline", **PIPELINE)
    return os.path.join(raw, "pipeline-00001.json")


# ---- several laws on one communication (figures 16 and 17) ------------------
# The set-up of figures 13-15 (two stages, computations of time 0.001, one
# communication of time 1 on every link) for the coprime team sizes R1 < R2 in
# 2..9: one u x v pattern each (u = R1, v = R2), whose bounds have closed
# forms (docs/design.md 4): deterministic min(u, v), exponential uv / (u + v - 1).
# Coprime sizes keep one component: with g > 1 the g identical components
# finish in order only up to the largest of g random lags, which grows like
# sqrt(n) and biases finite runs of heavy-tailed laws.

def law_sweep(st, args, laws):
    """Simulate every law on every pattern; one dict per (pattern, law)."""
    sizes = [(2, 3), (3, 4), (3, 5), (5, 7)] if args.ci else [
        (a, b) for a in range(2, 10) for b in range(a + 1, 10) if math.gcd(a, b) == 1]
    raw = os.path.join(args.out, "raw", "patterns")
    for r1, r2 in sizes:
        st.generate(raw, teams="%d,%d" % (r1, r2), comp="0.001", comm="1", count=1,
                    prefix="p%d-%d" % (r1, r2))
    datasets = 100000 if args.ci else 1000000
    jobs = [(r1, r2, law) for r1, r2 in sizes for law in laws]
    res = run_parallel(lambda j: simulate(st, os.path.join(raw, "p%d-%d-00001.json" % j[:2]),
                                          j[2], "--datasets", datasets), jobs, args.jobs)
    rows = []
    for (u, v, law), r in zip(jobs, res):
        det, exp = min(u, v), u * v / (u + v - 1)
        lo, hi = interval(r, 0.999)
        rows.append({
            "R1": u, "R2": v, "law": law, "nbue": r["nbue"],
            "throughput": r["simulation"]["throughput"], "ci95_low": r["simulation"]["ci95"][0],
            "ci95_high": r["simulation"]["ci95"][1], "ci999_low": lo,
            "ci999_high": hi, "det": det, "exp": exp, "exp_over_det": exp / det,
            "streamtp_lower": r["bounds"]["lower"], "streamtp_upper": r["bounds"]["upper"],
            "relative": (r["simulation"]["throughput"] - exp) / (det - exp),
            "position": "below" if hi < exp * (1 - 1e-9) else
                        "above" if lo > det * (1 + 1e-9) else "within",
        })
    return rows


LAW_FIELDS = ["R1", "R2", "law", "nbue", "throughput", "ci95_low", "ci95_high", "ci999_low",
              "ci999_high", "det", "exp", "exp_over_det", "streamtp_lower", "streamtp_upper",
              "relative", "position"]


def check_law_bounds(rows, checks):
    """What holds for every law: streamtp's bounds are the closed forms, and
    no law beats constant times (by Jensen: the (max,+) recurrence is convex
    and increasing in the times)."""
    for r in rows:
        tag = "%dx%d %s" % (r["R1"], r["R2"], r["law"])
        if r["streamtp_upper"] is not None:
            checks.ok(close(r["streamtp_upper"], r["det"], 1e-9),
                      "%s: streamtp deterministic %r, min(u,v) %r" % (tag, r["streamtp_upper"],
                                                                     r["det"]))
        if r["streamtp_lower"] is not None:
            checks.ok(close(r["streamtp_lower"], r["exp"], 1e-9),
                      "%s: streamtp exponential %r, Theorem 4 %r" % (tag, r["streamtp_lower"],
                                                                    r["exp"]))
        checks.ok(r["ci999_low"] <= r["det"] * (1 + 1e-9),
                  "%s: %.6g, 99.9%% interval above the deterministic %.6g"
                  % (tag, r["throughput"], r["det"]))
        if r["law"] in ("det", "exp"):
            exact = r[r["law"]]
            checks.ok(contains((r["ci999_low"], r["ci999_high"]), exact, 1e-9),
                      "%s: 99.9%% interval [%.9g, %.9g] misses the exact %.9g"
                      % (tag, r["ci999_low"], r["ci999_high"], exact))


# Distinct colours for up to 14 series: matplotlib's ten (tab10) and four
# more, so that no two laws of a figure share a colour.
SERIES_COLORS = ["C%d" % k for k in range(10)] + ["black", "darkgoldenrod", "lime", "navy"]


def series_colors(n):
    if n > len(SERIES_COLORS):
        raise ValueError("%d series, only %d distinct colours" % (n, len(SERIES_COLORS)))
    return SERIES_COLORS[:n]


def plot_laws(rows, laws, title, path):
    """Left: throughput / deterministic against exponential / deterministic
    (the bounds are y = 1 and y = x); right: position within the bounds,
    0 at the exponential bound, 1 at the deterministic one."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(15, 6), gridspec_kw={"width_ratios": [3, 2]})
    x = [0.54, 1.0]
    ax.fill_between(x, x, [1, 1], color="tab:green", alpha=0.08,
                    label="N.B.U.E. region [exponential, deterministic]")
    ax.plot(x, [1, 1], "k-", lw=1, label="deterministic (upper bound)")
    ax.plot(x, x, "k--", lw=1, label="exponential, Theorem 4 (lower bound)")
    markers = "osD^v<>pPX*h"
    colors = series_colors(len(laws))
    for k, law in enumerate(laws):
        rs = [r for r in rows if r["law"] == law]
        shift = (k - len(laws) / 2) * 0.0012
        ax.errorbar([r["exp_over_det"] + shift for r in rs],
                    [r["throughput"] / r["det"] for r in rs],
                    yerr=[[(r["throughput"] - r["ci95_low"]) / r["det"] for r in rs],
                          [(r["ci95_high"] - r["throughput"]) / r["det"] for r in rs]],
                    fmt=markers[k % len(markers)], ms=4, capsize=1.5, color=colors[k],
                    mfc="none", label=law)
        bx.plot([k + (i % 5 - 2) * 0.06 for i in range(len(rs))], [r["relative"] for r in rs],
                markers[k % len(markers)], color=colors[k], mfc="none", ms=5)
    ax.set_xlabel("exponential / deterministic throughput of the pattern, "
                  "max(u,v)/(u+v-1)")
    ax.set_ylabel("simulated throughput / deterministic throughput")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right", ncol=2)
    bx.axhspan(0, 1, color="tab:green", alpha=0.08)
    bx.axhline(0, color="black", ls="--", lw=1)
    bx.axhline(1, color="black", lw=1)
    bx.set_xticks(range(len(laws)))
    bx.set_xticklabels(laws, rotation=40, ha="right", fontsize=8)
    bx.set_ylabel("(throughput - exponential) / (deterministic - exponential)")
    bx.set_title("position within the bounds, one point per pattern")
    bx.grid(alpha=0.3, axis="y")
    save(fig, path)
