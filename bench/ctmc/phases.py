#!/usr/bin/env python3
"""phases.py: the memory and CPU time of the two phases of a Strict chain's
`eval` (enumeration, then stationary solve), for one or more streamtp builds
in the same run (issue 14, part 3: the first-touch cost of the solve).

/usr/bin/time gives only the peak of the whole run, which is the
enumeration's on the Strict chains; this script samples the process every
0.1 s (resident set from /proc/PID/status, user + system CPU from
/proc/PID/stat) and splits the run where the markings are freed: the first
sample after the peak whose resident set is below half of it (the hash set
and the markings are more than half of the peak on every Strict chain
measured).  It prints, per build: the peak, the solve phase's peak, the
total CPU seconds and the solve phase's (the sampling makes both +-0.1 s).

    bench/ctmc/phases.py --teams 5,7 /tmp/solver-old/build/streamtp build/streamtp
    bench/ctmc/phases.py --teams 6,7 --runs 2 OLD/streamtp build/streamtp
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")


def sample(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return rss * 1024, (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, StopIteration):
        return None


def run(exe, path, max_states):
    p = subprocess.Popen([exe, "eval", path, "--json", "--max-states", max_states],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rows = []
    while p.poll() is None:
        s = sample(p.pid)
        if s:
            rows.append(s)
        time.sleep(0.1)
    out = p.stdout.read()
    if p.returncode != 0 or not rows:
        sys.exit("phases.py: %s failed" % exe)
    peak = max(range(len(rows)), key=lambda i: rows[i][0])
    start = next((i for i in range(peak, len(rows)) if rows[i][0] < rows[peak][0] / 2), None)
    solve_peak = max(r[0] for r in rows[start:]) if start is not None else float("nan")
    solve_cpu = rows[-1][1] - rows[start][1] if start is not None else float("nan")
    return rows[peak][0], solve_peak, rows[-1][1], solve_cpu, out.split('"solver":')[1][:60]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", help="streamtp binaries, run in turn")
    ap.add_argument("--teams", default="5,7")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--max-states", default="100000000")
    ap.add_argument("--work", default="/tmp/streamtp-bench-phases")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    path = os.path.join(a.work, "strict-%s.json" % a.teams.replace(",", "-"))
    with open(path, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "make_strict.py"), a.teams, "1"],
                       stdout=f, check=True)
    print("| teams | build | peak MB | solve-phase peak MB | CPU s | solve-phase CPU s | solver |")
    print("|---|---|---|---|---|---|---|")
    for _ in range(a.runs):
        for exe in a.builds:
            peak, speak, cpu, scpu, solver = run(exe, path, a.max_states)
            print("| %s | %s | %.0f | %.0f | %.1f | %.1f | %s |" % (
                a.teams, exe, peak / 2**20, speak / 2**20, cpu, scpu, solver.split(",")[0]))


if __name__ == "__main__":
    main()
