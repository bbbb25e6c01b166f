"""Tests of the commands that look inside a mapping or a graph, from Python
(streamtp.teg, streamtp.ctmc; streamtp.graph in test_graph.py): each result must be the record the command prints with
--json for the same input, key for key, in the same order, with the same
JSON types and values, "version" and "limits" included (a wall time is
free), on every bundled example; a dict is accepted where a path is; the
library's statuses come through (ELIMIT with its limit); and no streamtp
executable is needed.  Run by ctest (python) like test_streamtp.py."""
import glob
import json
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import streamtp  # noqa: E402
from test_seeds import cli, cli_json, same  # noqa: E402

EXAMPLE_A = "examples/example-a.json"
MAPPINGS = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "examples",
                                                                             "*.json")))


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# ---- teg ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", MAPPINGS)
@pytest.mark.parametrize("model", [None, "overlap", "strict"])
def test_teg_is_the_commands_json(path, model):
    args = ["--model", model] if model else []
    out = cli("teg", path, *args)
    if out.returncode != 0:  # too large a graph: the same refusal
        with pytest.raises(streamtp.Error) as e:
            streamtp.teg(path, model)
        assert e.value.status == "ELIMIT" and str(e.value) in out.stderr
        return
    (want,) = cli_json("teg", path, *args)
    same(streamtp.teg(path, model), want)


def test_teg_sizes_are_the_closed_form():
    # Example A: teams 1,2,3,1, so R = lcm = 6 paths and 2N - 1 = 7 columns;
    # Strict: one token on each of the 7 processors' cycles
    r = streamtp.teg(EXAMPLE_A, "strict")
    assert (r["paths"], r["rows"], r["columns"], r["transitions"]) == (6, 6, 7, 42)
    assert r["tokens"] == 1 + 2 + 3 + 1
    assert r["model"] == "strict" and r["version"] == streamtp.__version__
    assert r["limits"]["max_transitions"] == 20000000


def test_teg_takes_a_dict():
    with open(EXAMPLE_A) as f:
        d = json.load(f)
    got, want = streamtp.teg(d), streamtp.teg(EXAMPLE_A)
    assert got["file"] == "<mapping>"
    del got["file"], got["seconds"], want["file"], want["seconds"]
    assert got == want


def test_teg_limits_are_the_librarys():
    with pytest.raises(streamtp.Error) as e:
        streamtp.teg(EXAMPLE_A, max_transitions=41)
    assert e.value.status == "ELIMIT"
    assert e.value.limit == {"kind": "transitions", "needed": 42, "allowed": 41, "estimate": 42}
    assert "--" not in str(e.value)  # the library names no command-line flag
    with pytest.raises(streamtp.Error) as e:
        streamtp.teg(EXAMPLE_A, max_transitions=0)
    assert e.value.status == "EINVAL"
    with pytest.raises(streamtp.Error) as e:
        streamtp.teg(EXAMPLE_A, model="both")
    assert e.value.status == "EINVAL"
    r = streamtp.teg(EXAMPLE_A, max_transitions=42, max_memory=1 << 30)
    assert r["limits"]["max_transitions"] == 42 and r["limits"]["max_memory"] == 1 << 30
    assert r == {**r, **cli_json("teg", EXAMPLE_A, "--max-transitions", 42, "--max-memory",
                                 "1G")[0], "seconds": r["seconds"]}


# ---- ctmc -----------------------------------------------------------------------------
def chains(path):
    """(model, component) of every chain of a mapping: Strict's, and each
    Overlap transfer component's (its index among evaluate's components)."""
    comps = streamtp.evaluate(path, "overlap", exp_method="none")["components"]
    return [("strict", None)] + [("overlap", k) for k, c in enumerate(comps)
                                 if c["kind"] == "transfer"]


CHAINS = [(p, m, k) for p in MAPPINGS for m, k in chains(os.path.join(ROOT, p))]


@pytest.mark.parametrize("path,model,component", CHAINS)
def test_ctmc_is_the_commands_json(path, model, component):
    args = ["--model", model, "--max-states", 200000]
    args += ["--component", component] if component is not None else []
    out = cli("ctmc", path, *args)
    if out.returncode != 0:  # too large a chain: the same refusal
        with pytest.raises(streamtp.Error) as e:
            streamtp.ctmc(path, model, component=component, max_states=200000)
        assert e.value.status == "ELIMIT" and str(e.value) in out.stderr
        return
    (want,) = cli_json("ctmc", path, *args)
    got = streamtp.ctmc(path, model, component=component, max_states=200000)
    for k in ("residual", "sweeps", "iterations", "seconds_build", "seconds_solve"):
        assert type(got.get(k)) is type(want.get(k)), k  # the solve's last digits and wall times
        got.pop(k, None), want.pop(k, None)
    for k in ("rate", "throughput", "period"):  # UMFPACK's digits depend on the BLAS loaded
        assert got[k] == pytest.approx(want.pop(k), rel=1e-9), k
        del got[k]
    same(got, want)


def test_ctmc_component_is_evaluate_component():
    # the 2x3 transfer T2 -> T3 limits Example A; its chain has 12 states
    ev = streamtp.evaluate(EXAMPLE_A)
    r = streamtp.ctmc(EXAMPLE_A, component=4)
    assert (r["states"], r["stage"], r["u"], r["v"]) == (12, "T2", 2, 3)
    assert math.isclose(r["throughput"], ev["exponential"]["throughput"], rel_tol=1e-9)
    assert math.isclose(r["period"], 1 / r["throughput"], rel_tol=1e-15)


def test_ctmc_not_solved_and_dict():
    with open(EXAMPLE_A) as f:
        d = json.load(f)
    r = streamtp.ctmc(d, "strict", solve=False)
    assert r["file"] == "<mapping>" and r["component"] is None and "solver" not in r
    assert r["seconds"] == r["seconds_build"]
    want = cli_json("ctmc", EXAMPLE_A, "--model", "strict", "--no-solve")[0]
    assert (r["states"], r["moves"]) == (want["states"], want["moves"])


@pytest.mark.parametrize("fmt", ["mtx", "csv", "storm", "prism"])
def test_ctmc_exports_are_the_commands(tmp_path, fmt):
    mine, theirs = tmp_path / "mine.tra", tmp_path / "theirs.tra"
    streamtp.ctmc(EXAMPLE_A, component=4, solve=False, output=str(mine), format=fmt)
    assert cli("ctmc", EXAMPLE_A, "--component", 4, "--no-solve", "--format", fmt,
               "-o", theirs).returncode == 0
    exts = [".tra", ".sta", ".lab", ".srew"] if fmt == "prism" else [".tra"]
    for e in exts:
        a, b = mine.with_suffix(e), theirs.with_suffix(e)
        assert a.read_bytes() == b.read_bytes(), e
    assert sorted(os.listdir(tmp_path)) == sorted([mine.with_suffix(e).name for e in exts] +
                                                  [theirs.with_suffix(e).name for e in exts])


def test_ctmc_errors_are_the_librarys():
    with pytest.raises(streamtp.Error) as e:
        streamtp.ctmc(EXAMPLE_A)
    assert e.value.status == "EINVAL" and e.value.args[0].endswith("choose one with component=K")
    assert "transfer components are 1 (T1 -> T2, 1x2), 4 (T2 -> T3, 2x3)" in str(e.value)
    with pytest.raises(streamtp.Error) as e:
        streamtp.ctmc(EXAMPLE_A, "strict", max_states=10)
    assert e.value.status == "ELIMIT" and e.value.limit["kind"] == "states"
    assert e.value.limit["allowed"] == 10 and "--" not in str(e.value)
    with pytest.raises(streamtp.Error) as e:
        streamtp.ctmc(EXAMPLE_A, component=4, solver="lu")
    assert e.value.status == "EINVAL"
    with pytest.raises(streamtp.Error) as e:
        streamtp.ctmc(EXAMPLE_A, component=4, format="mtx")
    assert e.value.status == "EINVAL"
    with pytest.raises(streamtp.Error) as e:
        streamtp.ctmc(EXAMPLE_A, component=4, tolerance=2)
    assert e.value.status == "EINVAL"


# ---- no executable ------------------------------------------------------------------------
def test_no_executable_needed(tmp_path):
    script = ("import shutil, streamtp\n"
              "assert shutil.which('streamtp') is None\n"
              "print(streamtp.teg('examples/example-a.json')['transitions'])\n"
              "print(streamtp.graph('examples/graphs/buffer.json', simulate=5)['transitions'])\n"
              "print(streamtp.ctmc('examples/example-a.json', component=4)['states'])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("STREAMTP", "STREAMTP_COMMAND")}
    env["PATH"] = str(tmp_path)  # an empty directory: no streamtp, no other program
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env.setdefault("STREAMTP_LIBRARY", os.path.join(ROOT, "build", "libstreamtp.so.0"))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["42", "2", "12"]
