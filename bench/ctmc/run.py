#!/usr/bin/python3
"""run.py: benchmark of streamtp's Markov-chain solver on heterogeneous
transfer patterns and Strict chains, against SciPy on the same generator in
the same run.

For each pattern U x V (default 3x4 up to 10x11) and each Strict mapping
with the given team sizes: write the mapping (make_pattern.py,
make_strict.py), run `streamtp ctmc --json` under /usr/bin/time -v
(enumeration and solve times, sweeps, residual, peak RSS), also with
`--solver direct` (UMFPACK) while the factors stay small, export the
generator (--mtx), and solve it with scipy_solve.py: spsolve (SuperLU)
while small, and GMRES + ILU down to streamtp's residual.  Prints a
Markdown table; the ratio is SciPy's best solve time over streamtp's, and
the agreement the largest relative difference of the rates found.

usage: /usr/bin/python3 bench/ctmc/run.py [--streamtp build/streamtp]
           [--patterns 3x4,5x6,...] [--strict "2,3,2;4,5"] [--work DIR] [--timeout S]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PATTERNS = "3x4,4x5,5x6,6x7,7x8,8x9,9x10,10x11"
DEFAULT_STRICT = "2,3,2;2,2,3,2;4,5"
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


def component(comp):
    return [] if comp is None else ["--component", str(comp)]


def streamtp_solve(exe, mapping, comp, solver, timeout):
    out, rss, rc = timed([exe, "ctmc", mapping] + component(comp) +
                         ["--json", "--max-states", "1e7", "--solver", solver], timeout)
    if rc != 0:
        return {"error": str(rc)}
    d = json.loads(out)
    d["peak_mb"] = rss
    return d


def scipy_solve(mtx, states, method, target, timeout):
    try:
        p = subprocess.run([SCIPY_PYTHON, os.path.join(HERE, "scipy_solve.py"), mtx, method,
                            repr(target), states], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr else str(p.returncode)}
    return json.loads(p.stdout)


def make_mapping(args, name, script, params):
    path = os.path.join(args.work, name + ".json")
    with open(path, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, script)] + params + ["1"], stdout=f,
                       check=True)
    return path


def run_chain(args, name, mapping, comp):
    """streamtp (iterative, and direct while small), then SciPy on its matrix."""
    mtx = os.path.join(args.work, name + ".mtx")
    csv = os.path.join(args.work, name + ".csv")
    row = {"name": name}
    row["gs"] = streamtp_solve(args.streamtp, mapping, comp, "iterative", args.timeout)
    states = row["gs"].get("states", 0)
    if states and states <= DIRECT_MAX:
        row["umfpack"] = streamtp_solve(args.streamtp, mapping, comp, "direct", args.timeout)
    subprocess.run([args.streamtp, "ctmc", mapping] + component(comp) +
                   ["--no-solve", "--max-states", "1e7", "--mtx", mtx, "--states", csv],
                   check=True, stdout=subprocess.DEVNULL)
    target = max(row["gs"].get("residual", 1e-13), 1e-15)
    if states and states <= DIRECT_MAX:
        row["spsolve"] = scipy_solve(mtx, csv, "spsolve", target, args.timeout)
    row["gmres"] = scipy_solve(mtx, csv, "gmres-ilu", target, args.timeout)
    os.remove(mtx)
    os.remove(csv)
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


def print_row(row):
    gs, gm = row["gs"], row["gmres"]
    print(f"| {row['name']} | {gs.get('states', '-')} | {gs.get('moves', '-')} "
          f"| {cell(gs, 'seconds_build')} | {cell(gs, 'seconds_solve')} "
          f"| {gs.get('iterations', '-')} | {cell(gs, 'residual', '{:.1e}')} "
          f"| {cell(gs, 'peak_mb', '{:.0f}')} | {cell(row.get('umfpack'), 'seconds_solve')} "
          f"| {cell(row.get('spsolve'))} "
          f"| {cell(gm)} ({cell(gm, 'residual', '{:.1e}')}) "
          f"| {cell(gm, 'peak_mb', '{:.0f}')} | {ratio(row)} | {agreement(row)} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streamtp", default=os.path.join(HERE, "..", "..", "build", "streamtp"))
    ap.add_argument("--patterns", default=DEFAULT_PATTERNS)
    ap.add_argument("--strict", default=DEFAULT_STRICT, help='team sizes, e.g. "2,3,2;4,5"')
    ap.add_argument("--work", default="/tmp/streamtp-bench-ctmc")
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    args.streamtp = os.path.abspath(args.streamtp)
    os.makedirs(args.work, exist_ok=True)
    print("| chain | states | moves | enumerate s | solve s | sweeps | residual | peak MB "
          "| UMFPACK s | scipy spsolve s | scipy GMRES+ILU s (residual) | scipy peak MB "
          "| ratio | rate agreement |")
    print("|" + "---|" * 14)
    jobs = []
    for spec in filter(None, args.patterns.split(",")):
        u, v = (int(x) for x in spec.split("x"))
        name = f"pattern-{u}x{v}"
        jobs.append((name, make_mapping(args, name, "make_pattern.py", [str(u), str(v)]), u))
    for spec in filter(None, args.strict.split(";")):
        name = "strict-" + spec.replace(",", "-")
        jobs.append((name, make_mapping(args, name, "make_strict.py", [spec]), None))
    for name, mapping, comp in jobs:
        print_row(run_chain(args, name, mapping, comp))


if __name__ == "__main__":
    main()
