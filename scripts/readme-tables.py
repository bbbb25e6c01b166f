#!/usr/bin/env python3
"""readme-tables.py: the tables and prose numbers of README.md, recomputed by
the `streamtp` on the PATH (scripts/readme-examples.sh puts the binary under
test there and runs this from a scratch copy of the tree, where it may write).

  readme-tables.py laws        the table of one simulation per law family
  readme-tables.py patterns    the table of Young-diagram chain sizes S(u, v)
  readme-tables.py strict      the Strict chain sizes and the refusal quoted in prose
  readme-tables.py reduce      the reduction-tree numbers quoted in prose
  readme-tables.py bcast       the grid88 makespans quoted in prose (seconds)

Each prints what the README must show (a Markdown table, or lines that must
occur in the paragraph); the README marks the place with
<!-- readme-table CMD --> or <!-- readme-numbers CMD -->.
"""
import json
import math
import subprocess
import sys


def streamtp(*args, check=True):
    p = subprocess.run(["streamtp", *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        sys.exit(f"readme-tables: streamtp {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def js(*args):
    return json.loads(streamtp(*args).stdout)


def laws():
    mapping = "bench/simgrid/mappings/pattern5x7.json"
    specs = ["det", "exp", "uniform:spread=1", "gamma:cv=0.5", "weibull:cv=0.5",
             "lognormal:cv=0.5", "normal:cv=0.3", "beta:a=2,b=2", "erlang:k=3",
             "hyperexp:cv=2", "gamma:cv=2", "empirical:examples/measured-times.txt"]
    print("| `--law` | throughput | 95% CI | position | relative | N.B.U.E. |")
    print("|---|---|---|---|---|---|")
    for spec in specs:
        r = js("simulate", mapping, "--law", spec, "--json")
        label = f"`{spec}`"
        if spec.startswith("empirical:"):
            with open(spec.split(":", 1)[1]) as f:
                n = sum(len(l.split("#")[0].replace(",", " ").split()) for l in f)
            label += f" ({n} samples)"
        nbue = {True: "yes", False: "no", None: "unknown"}[r["nbue"]]
        b, s = r["bounds"], r["simulation"]
        print(f"| {label} | {s['throughput']:.5f} | [{s['ci95'][0]:.5f}, {s['ci95'][1]:.5f}] "
              f"| {b['position']} | {b['relative']:.2f} | {nbue} |")


def patterns():
    """Chain sizes built by `ctmc --no-solve` up to 10x11 (0.2 s, 0.2 GB); the
    11x12 chain (1 GB) comes from S(u, v) = v C(u+v-1, u-1), which must agree
    with every chain built here."""
    cols = [(3, 4), (5, 6), (7, 9), (8, 9), (9, 10), (10, 11), (11, 12)]
    sizes = []
    for u, v in cols:
        formula = v * math.comb(u + v - 1, u - 1)
        if (u, v) != (11, 12):
            out = f"readme-patterns/{u}x{v}"
            streamtp("generate", "--teams", f"{u},{v}", "--comp", "1", "--comm", "1..2",
                     "--seed", "1", "-o", out)
            r = js("ctmc", f"{out}/map-00001.json", "--component", str(u), "--no-solve", "--json")
            if (r["u"], r["v"], r["states"]) != (u, v, formula):
                sys.exit(f"readme-tables: {u}x{v}: built {r['u']}x{r['v']} with {r['states']} "
                         f"states, the formula says {formula}")
        sizes.append(formula)
    print("| pattern | " + " | ".join(f"{u}x{v}" for u, v in cols) + " |")
    print("|---|" + "---|" * len(cols))
    print("| states | " + " | ".join(f"{s:,}" for s in sizes) + " |")


def strict():
    for teams in ("2,3,2", "4,5"):
        out = f"readme-strict/{teams}"
        streamtp("generate", "--teams", teams, "--comp", "1..2", "--comm", "1..2", "--seed", "1",
                 "--model", "strict", "-o", out)
        r = js("ctmc", f"{out}/map-00001.json", "--no-solve", "--json")
        print(f"teams {teams}: {r['states']:,}" if teams == "2,3,2" else f"{teams}: {r['states']:,}")
    out = "readme-strict/5,6"
    streamtp("generate", "--teams", "5,6", "--comp", "1..2", "--comm", "1..2", "--seed", "1",
             "--model", "strict", "-o", out)
    p = streamtp("ctmc", f"{out}/map-00001.json", "--no-solve", check=False)
    # the last line of stderr (progress lines may come first on a slow machine)
    msg = p.stderr.strip().split("\n")[-1].split(f"{out}/map-00001.json: ", 1)[-1]
    print(msg.replace("`streamtp simulate --model strict`", "streamtp simulate --model strict"))


def reduce():
    states = {n: js("reduce", "--n", str(n), "--d", "1", "--c", "2", "--json")["exponential"]
              for n in (16, 22, 23)}
    assert states[23]["makespan"] is None  # n = 22 is the largest under --max-states 10^6
    print(f"{states[16]['states']} at n = 16, about {round(states[22]['states'] / 1e5)} x 10^5 at n = 22")
    b = js("reduce", "--n", "8", "--d", "1", "--c", "2", "--tree", "binomial", "--json")
    o = js("reduce", "--n", "8", "--d", "1", "--c", "2", "--json")
    assert b["deterministic"]["makespan"] == o["deterministic"]["makespan"]
    print(f"the same makespan {o['deterministic']['makespan']:g} as Algorithm 1's")
    print(f"({b['exponential']['makespan']:.3f} against {o['exponential']['makespan']:.3f})")


def bcast():
    """Makespans of the heuristics on grid88 with 4 MB, in seconds (the
    output is in microseconds)."""
    out = streamtp("bcast", "examples/bcast/grid88.json", "--size", "4194304",
                   "--inter", "all").stdout
    span = {l.split(":")[0]: (float(l.split()[2].rstrip(",")), float(l.split()[4]))
            for l in out.split("\n") if l and not l.startswith(" ") and ": makespan " in l}
    s = lambda x: f"{x / 1e6:.2f} s"
    print(f"{s(span['ecef'][0])} with constant times, {s(span['ecef'][1])} expected")
    print(f"Flat at {s(span['flat'][0])}")
    assert s(span["ecef-la"][0]) == s(span["ecef-lat"][0])
    print(f"ECEF-LA and ECEF-LAt at {s(span['ecef-la'][0])}")


{"bcast": bcast, "laws": laws, "patterns": patterns, "strict": strict, "reduce": reduce}[sys.argv[1]]()
