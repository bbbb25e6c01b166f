#!/usr/bin/env python3
"""phasetype.py: chain sizes and times of the exact values under phase-type
laws (docs/design.md, "Phase-type laws"), Erlang-k for growing k, on Example
A (Overlap and Strict) and the Strict 5x6 mapping of make_strict.py, until
the chain no longer fits the memory budget; then one hyperexponential and
one fitted law per model.  For each run: the chain's states, CPU seconds
(user + system) and peak RSS under /usr/bin/time -v, the exact throughput,
and the gain: the N.B.U.E. interval [exp, det] against the single value,
and the 95 % interval of a Monte Carlo run of the same law (`simulate
--no-bounds`, --datasets data sets, batch means) against it, with whether
the exact value lies inside.

    bench/ctmc/phasetype.py                         # every model, k = 1, 2, 3, ...
    bench/ctmc/phasetype.py --models strict-a --ks 1,2,3 --max-memory 2G
    bench/ctmc/phasetype.py --models strict-5x6 --ks 1,2 --others ''

Prints a markdown table (bench/README.md, "Phase-type laws")."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def timed(cmd):
    """(stdout, CPU seconds, peak RSS in bytes) of cmd under /usr/bin/time -v."""
    out = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    user = float(re.search(r"User time \(seconds\): ([0-9.]+)", out.stderr).group(1))
    system = float(re.search(r"System time \(seconds\): ([0-9.]+)", out.stderr).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): ([0-9]+)", out.stderr).group(1))
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {out.returncode}\n{out.stderr}")
    return out.stdout, user + system, rss * 1024


def models(work):
    strict56 = os.path.join(work, "strict-5-6.json")
    with open(strict56, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "make_strict.py"), "5,6", "1"],
                       stdout=f, check=True)
    example = os.path.join(ROOT, "examples", "example-a.json")
    return {"overlap-a": ("Example A, Overlap", example, "overlap"),
            "strict-a": ("Example A, Strict", example, "strict"),
            "strict-5x6": ("Strict 5x6", strict56, "strict")}


def run(binary, path, model, law, args):
    cmd = [binary, "eval", path, "--model", model, "--law", law, "--json",
           "--max-states", str(args.max_states), "--max-memory", args.max_memory]
    out, cpu, rss = timed(cmd)
    r = json.loads(out.splitlines()[0])
    return r, cpu, rss


def monte_carlo(binary, path, model, law, args):
    """(ci95 low, high, CPU seconds) of simulate under the same law."""
    cmd = [binary, "simulate", path, "--model", model, "--law", law, "--no-bounds",
           "--json", "--datasets", str(args.datasets)]
    out, cpu, _ = timed(cmd)
    lo, hi = json.loads(out.splitlines()[0])["simulation"]["ci95"]
    return lo, hi, cpu


def row(name, law, r, cpu, rss, mc):
    """A table row, and "value", "too large" (the chain exceeds the limits) or
    "refused" (for another reason: a law of too many phases).  The gain: the
    N.B.U.E. interval [exp, det] is (det - exp) / value wide relative to the
    one exact value, which sits at (value - exp) / (det - exp) in it; the
    Monte Carlo interval is (hi - lo) / value wide."""
    e, x, d = r["exact_law"], r["exponential"]["throughput"], r["deterministic"]["throughput"]
    if e["throughput"] is None:
        why = e["reason"].split(" (")[0]
        return (f"| {name} | `{law}` | - | - | {cpu:.1f} | {rss / 2**20:.0f} MB | - | - | - | "
                f"refused: {why} |"), "too large" if "needs more than" in why else "refused"
    v = e["throughput"]
    lo, hi, mcpu = mc()
    inside = "in" if lo <= v <= hi else "**out**"
    return (f"| {name} | `{law}` | {e['states']:,} | {v:.9g} | {cpu:.1f} | {rss / 2**20:.0f} MB | "
            f"{(d - x) / v:.1%} | {(v - x) / (d - x):.3f} | {(hi - lo) / v:.2%} ({mcpu:.1f} s), {inside} | "
            f"{e.get('solver', e['method'])} |", "value")


def line(binary, name, path, model, law, args):
    """The row of one law on one model, and what came of it (row())."""
    return row(name, law, *run(binary, path, model, law, args),
               lambda: monte_carlo(binary, path, model, law, args))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "streamtp"))
    ap.add_argument("--models", default="overlap-a,strict-a,strict-5x6")
    ap.add_argument("--ks", default="1,2,3,4,5,6,8,12,16,24,32,48,64,96,128,256,512,1024")
    ap.add_argument("--max-memory", default="10G")
    ap.add_argument("--max-states", type=int, default=1000000000)
    ap.add_argument("--datasets", type=int, default=1000000,
                    help="data sets of the Monte Carlo run beside each exact value")
    ap.add_argument("--others", default="hyperexp:cv=2;ph:fit=examples/measured-times.txt",
                    help='";"-separated laws run once per model after the Erlang ones')
    args = ap.parse_args()
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory() as work:
        table = models(work)
        print("| model | law | states | exact throughput | CPU s | peak RSS | N.B.U.E. width / value | "
              "value in [exp, det] | Monte Carlo 95 % width / value (CPU s), exact | solver |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for key in args.models.split(","):
            name, path, model = table[key]
            fitted = 0
            for k in map(int, args.ks.split(",")):
                text, got = line(args.bin, name, path, model, f"erlang:k={k}", args)
                print(text, flush=True)
                if got == "value":
                    fitted = k
                    continue
                # too large: the orders between the last that fitted and this one
                for kk in range(fitted + 1, k if got == "too large" else fitted + 1):
                    text, got = line(args.bin, name, path, model, f"erlang:k={kk}", args)
                    print(text, flush=True)
                    if got != "value":
                        break
                break
            for law in filter(None, args.others.split(";")):
                print(line(args.bin, name, path, model, law, args)[0], flush=True)


if __name__ == "__main__":
    main()
