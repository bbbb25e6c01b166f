"""table1.py: the paper's Table 1, mappings without a critical resource.

Six families of random instances (sizes, computation and communication time
ranges of the paper's Table 1), the same number of instances per family as the
paper, both models on every instance.  Communication times are drawn per
processor (generate --comm-per processor: each processor's private link, as
in a SimGrid cluster), the reading closest to the paper's counts
(table1_readings.py compares the others).  A mapping has no critical resource when
its deterministic period exceeds the largest resource cycle-time M_ct (beyond
the 1e-9 relative tolerance of streamtp).  The whole table is computed for
three readings of "chosen uniformly within the ranges" (streamtp generate
--draw times | rates | integers); `times` is the reference.

Also checks, on every instance: M_ct recomputed here from the mapping file
(docs/design.md 3) equals streamtp's, and the period is never below M_ct; and on a
sample of the mappings without a critical resource, that a (max,+)
simulation of the event graph, written here from docs/design.md 2 independently
of streamtp, gives the same throughput (within 1e-3: the slope of a finite
run converges like 1/rounds after a transient) and a period above M_ct.

Writes table1.csv (one line per family, model and draw), table1.png, and
raw/patterns.csv (which team sizes lack a critical resource most often).
"""
import collections
import json
import math
import os

import common

# (label, sizes, comp, comm, instances, paper: overlap count, strict count)
FAMILIES = [
    ("(10,20),(10,30) 5..15", [(10, 20), (10, 30)], "5..15", "5..15", 220, 0, 14),
    ("(10,20),(10,30) 10..1000", [(10, 20), (10, 30)], "10..1000", "10..1000", 220, 0, 0),
    ("(20,30) 5..15", [(20, 30)], "5..15", "5..15", 68, 0, 5),
    ("(20,30) 10..1000", [(20, 30)], "10..1000", "10..1000", 68, 0, 0),
    ("(2,7),(3,7) comp 1, comm 5..10", [(2, 7), (3, 7)], "1", "5..10", 1000, 0, 10),
    ("(2,7),(3,7) comp 1, comm 10..50", [(2, 7), (3, 7)], "1", "10..50", 1000, 0, 0),
]
DRAWS = ["times", "rates", "integers"]
# One communication time per processor (its private link; p -> q takes the
# slower of p's and q's), the reading of the protocol closest to the paper's
# counts among those table1_readings.py compares (notebooks-data/README.md).
READING = {"comm_per": "processor"}
MODELS = ["overlap", "strict"]
CRITICAL_RTOL = 1e-9  # what streamtp uses to call a resource critical


def cycle_times(path):
    """Per-processor [C_in, C_comp, C_out] of docs/design.md 3, from the file."""
    m = json.load(open(path))
    speed = {p["name"]: p["speed"] for p in m["processors"]}
    bw = {(l["from"], l["to"]): l["bandwidth"] for l in m.get("links", [])}
    st, teams = m["stages"], m["mapping"]
    ct = {}
    for i, team in enumerate(teams):
        for p in team:
            ct[p] = [0.0, st[i]["work"] / speed[p] / len(team), 0.0]
    for i in range(len(teams) - 1):
        a, b = teams[i], teams[i + 1]
        g = math.gcd(len(a), len(b))
        u, v = len(a) // g, len(b) // g
        for j in range(g):
            for p in a[j::g]:
                for q in b[j::g]:
                    d = st[i]["output"] / bw.get((p, q), m.get("bandwidth", 0)) / (g * u * v)
                    ct[p][2] += d
                    ct[q][0] += d
    return ct


def simulated_throughput(path, model, rounds):
    """(max,+) recurrence D_t(r) = x_t + max over places (s -> t, k tokens) of
    D_s(r - k), r = round (R data sets each); throughput from the slope of the
    last column's completions over the second half of the rounds."""
    times, inputs, rows = common.event_graph(path, model)
    prev = [0.0] * len(times)
    last = len(times) - 1
    mid_value = 0.0
    for r in range(rounds):
        cur = [0.0] * len(times)
        for t, x in enumerate(times):  # row by row: token-free sources come first
            start = 0.0
            for s, k in inputs[t]:
                start = max(start, cur[s] if k == 0 else prev[s])
            cur[t] = start + x
        prev = cur
        if r == rounds // 2:
            mid_value = cur[last]
    return rows * (rounds - 1 - rounds // 2) / (prev[last] - mid_value)


def mct(ct, model):
    return max((c[0] + c[1] + c[2]) if model == "strict" else max(c) for c in ct.values())


def run_family(st, args, k, fam, draw, per_size):
    label, sizes, comp, comm = fam[:4]
    root = os.path.join(args.out, "raw", draw, "family%d" % k)
    for s, (n, m) in enumerate(sizes):
        st.generate(os.path.join(root, "%dx%d" % (n, m)), stages=n, processors=m, comp=comp,
                    comm=comm, count=per_size, seed=100 * k + s, draw=draw, **READING)
    return st.batch([root], root + ".csv", "--model", "both", "--exp-method", "none")


def summarise(rows, fam, k, draw, checks, patterns):
    out = []
    for model in MODELS:
        rs = [r for r in rows if r["model"] == model]
        ok = [r for r in rs if r["status"] == "OK"]
        free = [r for r in ok if not r["deterministic.critical_resource"]]
        gaps = [r["deterministic.period"] / r["deterministic.max_cycle_time"] - 1 for r in free]
        for r in ok:
            m = mct(cycle_times(r["file"]), model)
            checks.ok(common.close(m, r["deterministic.max_cycle_time"], 1e-9),
                      "%s %s: M_ct %r, streamtp %r" % (r["file"], model, m, r["deterministic.max_cycle_time"]))
            checks.ok(r["deterministic.period"] >= r["deterministic.max_cycle_time"] * (1 - CRITICAL_RTOL),
                      "%s %s: period below M_ct" % (r["file"], model))
        if draw == "times":
            for r in free:
                patterns[(k, model, r["replication"])] += 1
        out.append({
            "family": fam[0], "draw": draw, "model": model, "instances": len(rs),
            "failed": len(rs) - len(ok),
            "without_critical": len(free),
            "without_critical_gap_over_1pct": sum(g > 0.01 for g in gaps),
            "max_gap_pct": "%.2f" % (100 * max(gaps)) if gaps else "",
            "paper": "%d/%d" % (fam[5] if model == "overlap" else fam[6], fam[4]),
        })
    return out


def plot(table, gaps, overlap_gap, path, ci):
    fig, axes = common.plt.subplots(1, 3, figsize=(15, 4.8))
    for ax, model in zip(axes[:2], MODELS):
        labels = [f[0] for f in FAMILIES]
        x = range(len(labels))
        width = 0.2
        paper = [int(r["paper"].split("/")[0]) / int(r["paper"].split("/")[1]) * 100
                 for r in table if r["model"] == model and r["draw"] == "times"]
        ax.bar([i - 1.5 * width for i in x], paper, width, label="paper", color="black")
        for d, draw in enumerate(DRAWS):
            rs = [r for r in table if r["model"] == model and r["draw"] == draw]
            pct = [100 * r["without_critical"] / r["instances"] for r in rs]
            bars = ax.bar([i + (d - 0.5) * width for i in x], pct, width, label="streamtp, " + draw)
            if draw == "times":
                for b, r in zip(bars, rs):
                    ax.annotate("%d/%d" % (r["without_critical"], r["instances"]),
                                (b.get_x() + b.get_width() / 2, b.get_height()),
                                ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("% of mappings without a critical resource")
        ax.set_title("%s model, communication times per processor%s"
                     % (model.capitalize(), " (CI size)" if ci else ""))
        ax.set_ylim(0, max(1.0, ax.get_ylim()[1]))
        ax.legend(fontsize=7)
        if model == "overlap" and not any(r["without_critical"] for r in table
                                          if r["model"] == model):
            # Every bar is 0 (as in the paper): say so, instead of an empty panel.
            n = sum(r["instances"] for r in table if r["model"] == model)
            ax.set_ylim(0, 1.0)
            ax.text(0.5, 0.55, "Overlap: every mapping has a critical resource\n"
                    "0 of %d, in every family and every draw\n(paper: 0 in every family)\n\n"
                    "period = M_ct within %.1e (relative)\nin all %d evaluations"
                    % (n, overlap_gap, n), transform=ax.transAxes, ha="center", va="center",
                    fontsize=10, bbox=dict(boxstyle="round", fc="white", ec="tab:blue"))
    ax = axes[2]
    if gaps:
        ax.hist([100 * g for g in gaps], bins=30, color="tab:blue")
    ax.axvline(9, color="black", linestyle="--", label="paper: below 9%")
    ax.set_xlabel("period / M_ct - 1 (%), Strict, no critical resource (draw: times)")
    ax.set_ylabel("mappings")
    ax.legend(fontsize=7)
    common.save(fig, path)


def check_by_simulation(table_rows, checks, limit):
    """The instances without a critical resource, recomputed by the
    simulation above (small event graphs only: it runs in Python)."""
    done = 0
    for r in table_rows:
        if done == limit or r["deterministic.critical_resource"] or r["status"] != "OK":
            continue
        if r["paths"] * (2 * len(r["replication"].split()) - 1) > 3000:
            continue
        rho = simulated_throughput(r["file"], r["model"], 600)
        checks.ok(common.close(rho, r["deterministic.throughput"], 1e-3),  # a finite run's slope
                  "%s %s: simulated %r, streamtp %r" % (r["file"], r["model"], rho,
                                                         r["deterministic.throughput"]))
        checks.ok(1 / rho > r["deterministic.max_cycle_time"] * (1 + 1e-6),
                  "%s %s: the simulated period does not exceed M_ct" % (r["file"], r["model"]))
        done += 1
    return done


def main():
    args = common.parse_args(__doc__)
    st = common.Streamtp(args)
    checks = common.Checks()
    table, gaps, patterns, simulated = [], [], collections.Counter(), 0
    overlap_gap = 0.0  # largest |period / M_ct - 1| under Overlap
    for draw in DRAWS:
        for k, fam in enumerate(FAMILIES, 1):
            per_size = 4 if args.ci else fam[4] // len(fam[1])
            rows = run_family(st, args, k, fam, draw, per_size)
            table += summarise(rows, fam, k, draw, checks, patterns)
            if draw == "times":
                simulated += check_by_simulation(rows, checks, 2 if args.ci else 6)
                gaps += [r["deterministic.period"] / r["deterministic.max_cycle_time"] - 1 for r in rows
                         if r["model"] == "strict" and r["status"] == "OK"
                         and not r["deterministic.critical_resource"]]
            overlap_gap = max([overlap_gap] + [abs(r["deterministic.period"] / r["deterministic.max_cycle_time"] - 1)
                                               for r in rows if r["model"] == "overlap"
                                               and r["status"] == "OK"])
    fields = ["family", "draw", "model", "instances", "failed", "without_critical",
              "without_critical_gap_over_1pct", "max_gap_pct", "paper"]
    common.write_csv(os.path.join(args.out, "table1.csv"), fields, table)
    common.write_csv(os.path.join(args.out, "raw", "patterns.csv"),
                     ["family", "model", "replication", "without_critical"],
                     [{"family": k, "model": m, "replication": rep, "without_critical": c}
                      for (k, m, rep), c in patterns.most_common()])
    checks.ok(all(r["without_critical"] == 0 for r in table if r["model"] == "overlap"),
              "some Overlap mapping has no critical resource")
    checks.ok(overlap_gap <= 1e-9, "Overlap: period and M_ct differ by %.3g" % overlap_gap)
    plot(table, gaps, overlap_gap, os.path.join(args.out, "table1.png"), args.ci)
    for r in table:
        print("%-34s %-8s %-7s %4d/%-4d without critical resource (paper %s), max gap %s%%"
              % (r["family"], r["draw"], r["model"], r["without_critical"], r["instances"],
                 r["paper"], r["max_gap_pct"] or "-"))
    print("%d mappings without a critical resource re-simulated in Python" % simulated)
    raise SystemExit(checks.finish())


if __name__ == "__main__":
    main()
