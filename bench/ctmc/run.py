#!/usr/bin/python3
"""run.py: benchmark of streamtp's Markov-chain solver on heterogeneous
transfer patterns, against SciPy on the same generator in the same run.

For each pattern U x V (default 3x4 up to 10x11): write the mapping
(make_pattern.py), run `streamtp ctmc --json` under /usr/bin/time -v
(enumeration and solve times, sweeps, residual, peak RSS), also with
`--solver direct` (UMFPACK) while the factors stay small, export the
generator (--mtx), and solve it with scipy_solve.py: spsolve (SuperLU)
while small, and GMRES + ILU down to streamtp's residual.  Prints a
Markdown table; the ratio is SciPy's best solve time over streamtp's, and
the agreement the largest relative difference of the rates found.

usage: /usr/bin/python3 bench/ctmc/run.py [--streamtp build/streamtp]
           [--patterns 3x4,5x6,...] [--work DIR] [--timeout S]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PATTERNS = "3x4,4x5,5x6,6x7,7x8,8x9,9x10,10x11"
DIRECT_MAX = 25000    # UMFPACK / SuperLU: 7x8 (24,024 states) already takes seconds
SCIPY_PYTHON = "/usr/bin/python3"  # Debian's python3-scipy


def timed(cmd, timeout):
    """Run cmd under /usr/bin/time -v: (stdout, peak RSS in MB, status)."""
    try:
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, "timeout"
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    rss = int(m.group(1)) / 1024.0 if m else float("nan")
    return p.stdout, rss, p.returncode


def streamtp_solve(exe, mapping, comp, solver, timeout):
    out, rss, rc = timed([exe, "ctmc", mapping, "--component", str(comp), "--json",
                          "--max-states", "1e7", "--solver", solver], timeout)
    if rc != 0:
        return {"error": str(rc)}
    d = json.loads(out)
    d["peak_mb"] = rss
    return d


def scipy_solve(mtx, method, target, timeout):
    try:
        p = subprocess.run([SCIPY_PYTHON, os.path.join(HERE, "scipy_solve.py"), mtx, method,
                            repr(target)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr else str(p.returncode)}
    return json.loads(p.stdout)


def run_pattern(args, u, v):
    mapping = os.path.join(args.work, f"pattern-{u}x{v}.json")
    mtx = os.path.join(args.work, f"pattern-{u}x{v}.mtx")
    with open(mapping, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "make_pattern.py"), str(u), str(v),
                        "1"], stdout=f, check=True)
    row = {"pattern": f"{u}x{v}"}
    row["gs"] = streamtp_solve(args.streamtp, mapping, u, "iterative", args.timeout)
    states = row["gs"].get("states", 0)
    if states and states <= DIRECT_MAX:
        row["umfpack"] = streamtp_solve(args.streamtp, mapping, u, "direct", args.timeout)
    subprocess.run([args.streamtp, "ctmc", mapping, "--component", str(u), "--no-solve",
                    "--max-states", "1e7", "--mtx", mtx], check=True, stdout=subprocess.DEVNULL)
    target = max(row["gs"].get("residual", 1e-13), 1e-15)
    if states and states <= DIRECT_MAX:
        row["spsolve"] = scipy_solve(mtx, "spsolve", target, args.timeout)
    row["gmres"] = scipy_solve(mtx, "gmres-ilu", target, args.timeout)
    os.remove(mtx)
    return row


def cell(d, key="seconds", fmt="{:.3g}"):
    if d is None:
        return "-"
    if "error" in d:
        return d["error"]
    return fmt.format(d[key])


def ratio(row):
    best = min((row[k]["seconds"] for k in ("spsolve", "gmres") if k in row and
                "seconds" in row[k]), default=None)
    ours = row["gs"].get("seconds_solve")
    return f"{best / ours:.0f}x" if best and ours else "-"


def agreement(row):
    """Largest relative difference between streamtp's rate and the others'."""
    ours = row["gs"].get("rate")
    others = [row[k]["rate"] for k in ("umfpack", "spsolve", "gmres") if k in row and
              "rate" in row[k]]
    if ours is None or not others:
        return "-"
    return "{:.0e}".format(max(abs(r - ours) / abs(ours) for r in others))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streamtp", default=os.path.join(HERE, "..", "..", "build", "streamtp"))
    ap.add_argument("--patterns", default=DEFAULT_PATTERNS)
    ap.add_argument("--work", default="/tmp/streamtp-bench-ctmc")
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    args.streamtp = os.path.abspath(args.streamtp)
    os.makedirs(args.work, exist_ok=True)
    print("| pattern | states | moves | enumerate s | solve s | sweeps | residual | peak MB "
          "| UMFPACK s | scipy spsolve s | scipy GMRES+ILU s (residual) | scipy peak MB "
          "| ratio | rate agreement |")
    print("|" + "---|" * 14)
    for spec in args.patterns.split(","):
        u, v = (int(x) for x in spec.split("x"))
        row = run_pattern(args, u, v)
        gs, gm = row["gs"], row["gmres"]
        print(f"| {row['pattern']} | {gs.get('states', '-')} | {gs.get('moves', '-')} "
              f"| {cell(gs, 'seconds_build')} | {cell(gs, 'seconds_solve')} "
              f"| {gs.get('iterations', '-')} | {cell(gs, 'residual', '{:.1e}')} "
              f"| {cell(gs, 'peak_mb', '{:.0f}')} | {cell(row.get('umfpack'), 'seconds_solve')} "
              f"| {cell(row.get('spsolve'))} "
              f"| {cell(gm)} ({cell(gm, 'residual', '{:.1e}')}) "
              f"| {cell(gm, 'peak_mb', '{:.0f}')} | {ratio(row)} | {agreement(row)} |",
              flush=True)


if __name__ == "__main__":
    main()
