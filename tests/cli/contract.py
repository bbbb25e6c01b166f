#!/usr/bin/env python3
"""contract.py: every command of `streamtp --help` held to the run contract
(cli/run.h, "The run contract"; docs/format.md, "Shell conventions") on
generated inputs:

  cancel     a long run gets SIGINT after a second: exit 130 within a
             second, "streamtp: interrupted" on standard error, and every
             line on standard output whole (a JSON line parses);
  progress   on a terminal (script(1)), a line "streamtp: ..." on standard
             error after a second;
  memory     --max-memory refuses a large case before building it, within
             seconds, naming the budget;
  output     standard output on /dev/full: exit 1 and one line "cannot write
             the output"; a closed pipe (SIGPIPE ignored): exit 141, silent;
  property   random small inputs (a seed printed, STREAMTP_CONTRACT_SEED
             replays it): exit 0 or 2, never a crash; every JSON line parses,
             its numbers are finite and its intervals ordered.

A command missing from CASES fails the test: a new command must say here how
it runs long, large and with many records.  Usage: contract.py STREAMTP."""
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TMP = tempfile.mkdtemp(prefix="streamtp-contract-")
FAILS = []
SLACK = float(os.environ.get("STREAMTP_CONTRACT_SLACK", "1"))  # ASan builds run slower
# A shared machine under load (more runnable processes than cores) stretches
# every wall-clock bound in proportion: a second on a quiet machine, more
# when others compete for the cores, so that load alone fails no check.
SLACK *= max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        FAILS.append(what)


def path(*parts):
    return os.path.join(ROOT, *parts)


def tmp(name):
    return os.path.join(TMP, name)


# ---- generated inputs -----------------------------------------------------------------
def chains(k, length):
    """k independent chains of `length` transitions: (length + 1)^k ideals."""
    tr, pl = [], []
    for c in range(k):
        for i in range(length):
            tr.append({"name": f"c{c}_{i}", "time": 1 + 0.1 * c + 0.01 * i})
            if i:
                pl.append({"from": f"c{c}_{i - 1}", "to": f"c{c}_{i}"})
    return {"name": f"chains{k}x{length}", "transitions": tr, "places": pl}


def platform(n, rng):
    """n clusters with symmetric random latencies and gaps."""
    L = [[0.0] * n for _ in range(n)]
    g = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i):
            L[i][j] = L[j][i] = round(rng.uniform(1, 10), 3)
            g[i][j] = g[j][i] = round(rng.uniform(0.1, 2), 3)
    cl = [{"name": f"C{i}", "size": rng.randint(1, 64), "L": round(rng.uniform(0.1, 1), 3),
           "g": round(rng.uniform(0.1, 1), 3)} for i in range(n)]
    return {"clusters": cl, "inter": {"L": L, "g": g}}


def random_graph(rng):
    """A small DAG or timed event graph: times 0 or within [1e-3, 1e3]."""
    n = rng.randint(1, 9)
    teg = rng.random() < 0.5
    tr = [{"name": f"t{i}", "time": rng.choice([0.0, 1e-3, 0.5, 1.0, 7.0, 1e3])
           if not teg else rng.choice([1e-3, 0.5, 1.0, 7.0, 1e3])} for i in range(n)]
    pl = []
    for _ in range(rng.randint(0, 2 * n)):
        a, b = rng.randrange(n), rng.randrange(n)
        if teg:
            pl.append({"from": f"t{a}", "to": f"t{b}", "tokens": rng.randint(1, 3)})
        elif a < b:
            pl.append({"from": f"t{a}", "to": f"t{b}"})
    if teg and not pl:
        pl.append({"from": "t0", "to": "t0", "tokens": 1})
    return {"name": "random", "transitions": tr, "places": pl}


def random_mapping(rng):
    nst, npr = rng.randint(1, 4), rng.randint(1, 8)
    procs = [f"P{i}" for i in range(npr)]
    rng.shuffle(procs)
    teams, at = [], 0
    for i in range(nst):
        left = npr - at - (nst - i - 1)
        k = rng.randint(1, max(1, min(3, left)))
        teams.append(procs[at:at + k])
        at += k
    return {"stages": [{"name": f"T{i}", "work": rng.choice([1, 10, 100]),
                        "output": rng.choice([1, 5, 20])} for i in range(nst)],
            "processors": [{"name": f"P{i}", "speed": rng.choice([1, 2, 5])}
                           for i in range(npr)],
            "bandwidth": rng.choice([1, 2, 10]), "mapping": teams,
            "model": rng.choice(["overlap", "strict"])}


def write(name, obj):
    with open(tmp(name), "w") as f:
        json.dump(obj, f)
    return tmp(name)


def make_inputs():
    rng = random.Random(7)
    write("chains13.json", chains(13, 3))
    write("chains17.json", chains(17, 1000))
    write("platform700.json", platform(700, rng))  # 7 MB: parsed well within the second
    write("platform60.json", platform(60, rng))
    write("platform200.json", platform(200, rng))
    os.makedirs(tmp("strict-dir"), exist_ok=True)
    for k in range(40):
        shutil.copy(path("tests", "cli", "inputs", "strict-13-17-19-23.json"),
                    tmp(f"strict-dir/m{k:02d}.json"))


STRICT = path("tests", "cli", "inputs", "strict-13-17-19-23.json")
EXAMPLES = sorted(os.path.join(path("examples"), f) for f in os.listdir(path("examples"))
                  if f.endswith(".json"))
GRAPHS = [path("examples", "graphs", f) for f in ("fork-join.json", "buffer.json",
                                                  "barrier.json")]

# command -> (long run, large run and what refuses it, many records)
CASES = {
    "eval": dict(
        long=["eval", "--json", "--max-states", "1e9", "--max-memory", "2100M", STRICT],
        large=(["eval", "--max-memory", "10M", STRICT], 2, "memory budget"),
        many=["eval", "--json", *EXAMPLES]),
    "teg": dict(
        long=None,  # builds the graph at once: nothing long to interrupt
        large=(["teg", "--graph-json", "--max-memory", "1M", STRICT], 2, "memory budget"),
        many=["teg", "--dot", path("examples", "example-a.json")]),
    "batch": dict(
        long=["batch", "--jobs", "1", "--max-states", "1e9", "--max-memory", "2100M",
              tmp("strict-dir")],
        large=(["batch", "--format", "jsonl", "--max-memory", "10M", STRICT], 2,
               "memory budget"),
        many=["batch", "--format", "jsonl", *EXAMPLES]),
    "generate": dict(
        long=["generate", "--stages", "20", "--processors", "200", "--count", "2000000",
              "--force", "-o", tmp("generated")],  # about 50 files a second: few to write and delete
        large=None,  # writes files one by one: no large allocation to refuse
        many=None),  # writes into a directory, not standard output
    "simulate": dict(
        long=["simulate", "--json", "--datasets", "1e11", "--no-bounds",
              path("examples", "example-a.json")],
        large=(["simulate", "--max-memory", "10M", "--model", "strict", "--datasets", "1000",
                STRICT], None, "memory budget"),
        many=["simulate", "--json", "--datasets", "20000", *EXAMPLES[:4]]),
    "ctmc": dict(
        long=["ctmc", STRICT, "--states", tmp("states.csv"), "--max-states", "1e9",
              "--max-memory", "2100M"],
        large=(["ctmc", STRICT, "--max-memory", "10M"], 2, "memory budget"),
        many=["ctmc", path("examples", "example-a.json"), "--model", "strict", "--no-solve",
              "--states", "-", "--mtx", "-"]),  # 400 kB: more than a pipe holds
    "graph": dict(
        long=["graph", "--json", "--max-states", "1e9", tmp("chains13.json")],
        large=(["graph", "--json", "--max-states", "1e12", "--max-memory", "1M",
                tmp("chains17.json")], 0, "memory budget"),
        many=["graph", "--json", *GRAPHS * 150]),  # 200 kB: more than a pipe holds
    "reduce": dict(
        long=["reduce", "--n", "1..1000000", "--d", "1", "--c", "2", "--json", "--brief"],
        large=(["reduce", "--n", "100000000", "--d", "1", "--c", "1", "--exp-method", "none",
                "--max-memory", "100M"], 2, "memory budget"),
        many=["reduce", "--n", "1..30", "--d", "1", "--c", "2", "--json", "--brief"]),
    "redistribute": dict(
        long=["redistribute", "--P", "300", "--Q", "299", "--r", "7", "--s", "5", "--json",
              "--max-work", "1e15"],
        large=(["redistribute", "--P", "2048", "--Q", "2047", "--r", "1", "--s", "1",
                "--strategy", "caterpillar", "--simulate", "2", "--max-memory", "100M"], 2,
               "memory budget"),
        many=["redistribute", "--P", "40", "--Q", "36", "--r", "2", "--s", "3", "--strategy",
              "all", "--json"]),  # 140 kB: more than a pipe holds
    "bcast": dict(
        long=["bcast", "--json", "--inter", "all", tmp("platform700.json")],  # 6 s idle
        large=(["bcast", "--json", "--inter", "flat", "--max-states", "1e12", "--max-memory",
                "1M", tmp("platform60.json")], 0, "memory budget"),
        many=["bcast", "--json", "--max-states", "100", tmp("platform200.json")]),  # 110 kB
    "sweep": dict(
        long=["sweep", "--json", "--max-states", "1e9", "--max-memory", "2100M", "--vary",
              "speed:P0_0=1..10:1000", STRICT],
        large=(["sweep", "--max-memory", "10M", "--vary", "speed:P0_0=1..2:2", STRICT], 2,
               "memory budget"),
        many=["sweep", "--json", "--vary", "law=erlang:k=1..40", path("examples", "example-a.json")]),
    "optimize": dict(
        long=["optimize", "--json", "--method", "heuristic", "--time-limit", "100", STRICT],
        large=None,  # its memory is that of one evaluation: eval's case
        many=["optimize", "--json", "--method", "heuristic", "--max-evaluations", "50",
              path("examples", "example-a.json"), path("examples", "example-a.json")]),
}


def commands():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    names, inside = [], False
    for line in out.splitlines():
        if line.strip() == "commands:":
            inside = True
        elif inside and line.startswith("  ") and line.strip():
            names.append(line.split()[0])
        elif inside and not line.strip() and names:
            break
    return names


# ---- the checks ------------------------------------------------------------------------
def whole_lines(text, json_lines):
    if text and not text.endswith("\n"):
        return False
    if json_lines:
        for line in text.splitlines():
            try:
                json.loads(line)
            except ValueError:
                return False
    return True


def check_cancel(name, args):
    out, err = open(tmp("out"), "w"), open(tmp("err"), "w")
    p = subprocess.Popen([BIN, *args], stdout=out, stderr=err, cwd=ROOT)
    time.sleep(1.0)
    if p.poll() is not None:
        check(False, f"{name}: cancel", f"finished before the interrupt (exit {p.returncode})")
        return
    p.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        check(False, f"{name}: cancel", "still running 10 s after SIGINT")
        return
    dt = time.monotonic() - t0
    out.close()
    err.close()
    stdout, stderr = open(tmp("out")).read(), open(tmp("err")).read()
    check(rc == 130, f"{name}: Ctrl-C gives exit 130", f"exit {rc}, stderr {stderr[-300:]!r}")
    check(dt < 1.0 * SLACK, f"{name}: Ctrl-C stops within a second", f"{dt:.2f} s")
    check("streamtp: interrupted" in stderr, f"{name}: Ctrl-C says so", repr(stderr[-300:]))
    check(whole_lines(stdout, "--json" in args or "jsonl" in args),
          f"{name}: Ctrl-C leaves whole records", repr(stdout[-200:]))


def check_progress(name, args):
    if not shutil.which("script"):
        return
    cmd = " ".join(["timeout", "-s", "INT", "2.5", BIN, *args, ">/dev/null"])
    subprocess.run(["script", "-qec", cmd, tmp("tty.log")], capture_output=True, cwd=ROOT)
    log = open(tmp("tty.log"), errors="replace").read()
    # a progress line ("streamtp: WHAT: N so far, ...") or batch's bar ("3/40 files")
    check(re.search(r"streamtp: (?!interrupted|error)|\d+/\d+ files", log) is not None,
          f"{name}: progress on a terminal after a second", repr(log[-300:]))


def check_large(name, spec):
    args, want_rc, want = spec
    t0 = time.monotonic()
    p = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
    dt = time.monotonic() - t0
    both = p.stdout + p.stderr
    ok_rc = want_rc is None or p.returncode == want_rc
    check(ok_rc and want in both, f"{name}: --max-memory refuses the large case",
          f"exit {p.returncode}, {both[-300:]!r}")
    check(dt < 10 * SLACK, f"{name}: the refusal comes before the work", f"{dt:.1f} s")


def check_output_faults(name, args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([BIN, *args], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, timeout=300)
    lines = [l for l in p.stderr.splitlines() if "cannot write the output" in l]
    check(p.returncode == 1 and len(lines) == 1 and p.stderr.count("streamtp: error:") == 1,
          f"{name}: a full disk gives exit 1 and one message",
          f"exit {p.returncode}, {p.stderr[-300:]!r}")
    # a reader that has gone before the first record (`| head -0`; no race
    # with outputs that a pipe would hold whole), SIGPIPE ignored (as under Python)
    r, w = os.pipe()
    os.close(r)
    p = subprocess.Popen([BIN, *args], stdout=w, stderr=subprocess.PIPE, cwd=ROOT,
                         preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
    os.close(w)
    _, stderr = p.communicate(timeout=300)
    check(p.returncode == 141 and not stderr, f"{name}: a closed pipe gives exit 141, quietly",
          f"exit {p.returncode}, {stderr[-300:]!r}")


def finite_and_ordered(v, where="$"):
    """Numbers finite (JSON has no inf; a huge value would be a bug too) and
    every {"lower", "upper"} pair ordered."""
    if isinstance(v, float):
        return math.isfinite(v) and abs(v) < 1e300 or f"{where} = {v}"
    if isinstance(v, dict):
        lo, hi = v.get("lower"), v.get("upper")
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and \
                lo > hi * (1 + 1e-9) + 1e-12:
            return f"{where}: lower {lo} > upper {hi}"
        for k, x in v.items():
            r = finite_and_ordered(x, f"{where}.{k}")
            if r is not True:
                return r
    if isinstance(v, list):
        for i, x in enumerate(v):
            r = finite_and_ordered(x, f"{where}[{i}]")
            if r is not True:
                return r
    return True


def check_property(seed, rounds):
    rng = random.Random(seed)
    bad = []
    for k in range(rounds):
        runs = []
        g = write(f"g{k}.json", random_graph(rng))
        runs.append(["graph", "--json", "--max-states", "5000", g])
        runs.append(["graph", "--json", "--simulate", "20", "--firings", "200", g])
        m = write(f"m{k}.json", random_mapping(rng))
        runs.append(["eval", "--json", "--max-states", "5000", m])
        runs.append(["reduce", "--n", str(rng.randint(1, 14)), "--d", str(rng.choice([0, 1, 2.5])),
                     "--c", str(rng.choice([1, 0.5])), "--json", "--max-states", "5000"])
        runs.append(["redistribute", "--P", str(rng.randint(1, 9)), "--Q", str(rng.randint(1, 9)),
                     "--r", str(rng.randint(1, 4)), "--s", str(rng.randint(1, 4)), "--strategy",
                     "all", "--json"])
        b = write(f"b{k}.json", platform(rng.randint(1, 6), rng))
        runs.append(["bcast", "--json", "--max-states", "5000", b])
        for args in runs:
            p = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT,
                               timeout=120)
            if p.returncode not in (0, 2):
                bad.append(f"{' '.join(args)}: exit {p.returncode}: {p.stderr[-200:]}")
                continue
            for line in p.stdout.splitlines():
                try:
                    r = finite_and_ordered(json.loads(line))
                except ValueError:
                    r = "a line that is not JSON"
                if r is not True:
                    bad.append(f"{' '.join(args)}: {r}")
    check(not bad, f"property: {rounds} rounds of random inputs (seed {seed})",
          "; ".join(bad[:5]))


def main():
    make_inputs()
    try:
        names = commands()
        check(len(names) >= 10, "streamtp --help lists the commands", str(names))
        for name in names:
            spec = CASES.get(name)
            check(spec is not None, f"{name}: has its cases here (a new command needs them)")
            if spec is None:
                continue
            if spec["long"]:
                check_cancel(name, spec["long"])
                check_progress(name, spec["long"])
            if spec["large"]:
                check_large(name, spec["large"])
            if spec["many"]:
                check_output_faults(name, spec["many"])
        seed = int(os.environ.get("STREAMTP_CONTRACT_SEED", random.randrange(1 << 30)))
        check_property(seed, int(os.environ.get("STREAMTP_CONTRACT_ROUNDS", "12")))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print(f"{len(FAILS)} failure(s)")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
