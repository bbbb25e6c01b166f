"""timev.py: one command under /usr/bin/time -v, for the benchmark scripts
of bench/ctmc that measure peak memory and CPU seconds (dense.py,
dense_routes.py): the command's output, its peak resident bytes, its CPU
seconds (user + system) and its wall time as printed by time."""
import re
import subprocess
import sys


def timed(cmd, who):
    """Runs cmd; exits with who's name and the command's stderr on failure."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: %s failed: %s" % (who, " ".join(cmd), p.stderr[-2000:]))
    get = lambda key: re.search(re.escape(key) + r"[^:]*: ([\d.:]+)", p.stderr).group(1)
    cpu = float(get("User time")) + float(get("System time"))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    return p.stdout, int(get("Maximum resident set size")) * 1024, cpu, wall
