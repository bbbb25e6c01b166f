"""One record per command (issue 31): for every command, on the bundled
examples, the dict the Python module returns equals the JSON record
`streamtp CMD ... --json` prints (wall times aside), since both come from
the same library function; and every function runs with no streamtp
executable on PATH.  Run by ctest (python)."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import streamtp  # noqa: E402

BIN = os.environ.get("STREAMTP", os.path.join(ROOT, "build", "streamtp"))
EX = os.path.join("examples", "example-a.json")
BUFFER = os.path.join("examples", "graphs", "buffer.json")
SMALL4 = os.path.join("examples", "bcast", "small4.json")
def is_time(key):  # wall and CPU times and rates, which change from run to run
    return "seconds" in key or "_per_second" in key or "_per_cpu_second" in key

# (name, command-line arguments, the Python call): the same question twice
CASES = [
    ("eval", ["eval", EX, "--json"], lambda: streamtp.evaluate(EX)),
    ("eval-both-law", ["eval", EX, "--model", "both", "--law", "erlang:k=2", "--json"],
     lambda: streamtp.evaluate(EX, "both", law="erlang:k=2")),
    ("eval-explain", ["eval", EX, "--sensitivity", "--utilization", "--latency", "--json"],
     lambda: streamtp.evaluate(EX, sensitivity=True, utilization=True, latency=True)),
    ("simulate", ["simulate", EX, "--datasets", "20000", "--seed", "4", "--json"],
     lambda: streamtp.simulate(EX, datasets=20000, seed=4)),
    ("sweep", ["sweep", EX, "--vary", "speed:P1=5..20:4", "--format", "jsonl"],
     lambda: streamtp.sweep(EX, "speed:P1=5..20:4")),
    ("optimize", ["optimize", EX, "--method", "exact", "--json"],
     lambda: streamtp.optimize(EX, method="exact")),
    ("teg", ["teg", EX, "--json"], lambda: streamtp.teg(EX)),
    ("graph", ["graph", BUFFER, "--json"], lambda: streamtp.graph(BUFFER)),
    ("ctmc", ["ctmc", EX, "--component", "4", "--json"], lambda: streamtp.ctmc(EX, component=4)),
    ("reduce", ["reduce", "--n", "6", "--d", "1", "--c", "2", "--json"],
     lambda: streamtp.reduce(6, 1, 2)),
    ("redistribute", ["redistribute", "--P", "4", "--Q", "3", "--r", "2", "--s", "3", "--json"],
     lambda: streamtp.redistribute(4, 3, 2, 3)),
    ("bcast", ["bcast", SMALL4, "--inter", "ecef", "--json"],
     lambda: streamtp.bcast(SMALL4, inter="ecef")),
    ("batch", ["batch", EX, os.path.join("examples", "no-replication.json"), "--model", "both",
               "--format", "jsonl"],
     lambda: streamtp.batch(EX, os.path.join("examples", "no-replication.json"), model="both")),
]


def without_times(x):
    if isinstance(x, dict):
        return {k: without_times(v) for k, v in x.items() if not is_time(k)}
    if isinstance(x, list):
        return [without_times(v) for v in x]
    return x


def records(text):
    got = [json.loads(line) for line in text.splitlines() if line.strip()]
    return got[0] if len(got) == 1 else got


@pytest.mark.parametrize("name,args,call", CASES, ids=[c[0] for c in CASES])
def test_the_dict_is_the_command_lines_record(name, args, call, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    want = without_times(records(out.stdout))
    for rec in want if isinstance(want, list) else [want]:  # every record says how it went
        assert rec["status"] == "OK" and rec["error"] is None, name
    got = without_times(call())
    # a command of one record and a function of a list of one (or the reverse)
    want, got = (x if isinstance(x, list) else [x] for x in (want, got))
    assert got == want


def test_every_function_runs_without_the_executable(tmp_path):
    names = [c[0] for c in CASES]
    script = ("import shutil, sys\n"
              "sys.path.insert(0, 'python/tests')\n"
              "import test_one_record as t\n"
              "assert shutil.which('streamtp') is None\n"
              "for name, args, call in t.CASES:\n"
              "    call()\n"
              "    print(name)\n"
              "import streamtp\n"
              f"print(len(streamtp.generate({str(tmp_path / 'g')!r}, stages=2, processors=3)))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("STREAMTP", "STREAMTP_COMMAND")}
    env["PATH"] = str(tmp_path)  # an empty directory: no streamtp, no other program
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env.setdefault("STREAMTP_LIBRARY", os.path.join(ROOT, "build", "libstreamtp.so.0"))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:len(names)] == names
