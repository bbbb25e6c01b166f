"""common.py: what the optimize benchmarks share: instances from the
paper's Table 1 generator (`streamtp generate --all-links`, every ordered
pair of processors with its own link time, so that any mapping may be
chosen; the generated mapping is removed: the optimiser starts from
nothing), runs of `streamtp optimize --json`, and the load average."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def streamtp():
    exe = os.environ.get("STREAMTP", os.path.join(ROOT, "build", "streamtp"))
    if not os.path.exists(exe):
        sys.exit(f"no {exe}: build first (cmake --build build) or set STREAMTP")
    return exe


def load():
    return os.getloadavg()[0]


def problems(out, stages, processors, count, seed, prefix):
    """count problems of `stages` x `processors` (seeded): their paths."""
    d = os.path.join(out, prefix)
    subprocess.run([streamtp(), "generate", "--stages", str(stages), "--processors",
                    str(processors), "--all-links", "--count", str(count), "--seed", str(seed),
                    "--prefix", prefix, "-o", d, "--force"],  # the same files on a rerun
                   check=True)
    paths = []
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        with open(path) as f:
            p = json.load(f)
        p.pop("mapping", None)
        with open(path, "w") as f:
            json.dump(p, f, indent=1)
        paths.append(path)
    return paths


def optimize(path, *args):
    """The JSON line of `streamtp optimize PATH ARGS --json`."""
    r = subprocess.run([streamtp(), "optimize", path, "--json", *map(str, args)],
                       check=True, capture_output=True, text=True)
    return json.loads(r.stdout)
