"""Tests of streamtp.graph (python/streamtp/graph.py): each result must be
the object the command prints with --json for the same input (`streamtp
graph`), key for key, in the same order, with the same JSON types
(an integer stays an integer), bit for bit, "version" and "limits"
included (the record is the library's, stp_graph_result_json, on both
sides); each refusal must carry the command's message.  Run by ctest (python) like test_streamtp.py."""
import glob
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


def rel(*parts):
    # Paths relative to the repository, as a user types them: messages and
    # "file" keys then hold the same text on both sides.
    return os.path.join(*parts)


def cli(*args):
    out = subprocess.run([BIN, *map(str, args), "--json"], capture_output=True, text=True,
                         cwd=ROOT)
    return out


def cli_json(*args):
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def cli_error(*args):
    out = cli(*args)
    assert out.returncode == 2, out.stdout
    prefix = "streamtp: error: "
    assert out.stderr.startswith(prefix)
    return out.stderr[len(prefix):].strip()


def same(got, want, where="$"):
    """Equal values of equal JSON types, dict keys in the same order; a wall
    time ("seconds") is a float on both sides, its value free."""
    if where.endswith(".seconds"):
        assert type(got) is type(want) is float, f"{where}: {got!r} vs {want!r}"
        return
    assert type(got) is type(want), f"{where}: {got!r} vs {want!r}"
    if isinstance(want, dict):
        assert list(got) == list(want), where
        for k in want:
            same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for k, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{where}[{k}]")
    else:
        assert got == want, f"{where}: {got!r} vs {want!r}"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# ---- graph ----------------------------------------------------------------------------
GRAPHS = sorted(glob.glob(rel("examples", "graphs", "*.json"))) + \
    [rel("tests", "cli", "inputs", "graphs", "example-a-strict.json")]


@pytest.mark.parametrize("path", GRAPHS)
def test_graph_is_graph_json(path):
    same(streamtp.graph(path), cli_json("graph", path)[0])


@pytest.mark.parametrize("path", GRAPHS)
def test_graph_simulate_is_graph_json(path):
    want = cli_json("graph", path, "--simulate", 40, "--law", "gamma:cv=0.5", "--seed", 3,
                    "--firings", 500)[0]
    same(streamtp.graph(path, simulate=40, law="gamma:cv=0.5", seed=3, firings=500), want)
    # The default law is exp, the default seed 1.
    same(streamtp.graph(path, simulate=10, firings=200),
         cli_json("graph", path, "--simulate", 10, "--firings", 200)[0])


LAWS = ["erlang:k=3", "hyperexp:cv=2", "coxian:rate=3/1,next=0.4", "gamma:cv=0.5",
        "ph:fit=examples/measured-times.txt"]


@pytest.mark.parametrize("path", GRAPHS)
@pytest.mark.parametrize("law", LAWS)
def test_graph_exact_law_is_graph_json(path, law):
    # --law alone: the exact value under a phase-type law (or its reason).
    got, want = streamtp.graph(path, law=law), cli_json("graph", path, "--law", law)[0]
    got_law, want_law = got.pop("exact_law"), want.pop("exact_law")
    same(got, want)
    assert list(got_law) == list(want_law) and got_law["law"] == law
    for k, w in want_law.items():  # UMFPACK's digits depend on the BLAS loaded
        if k in ("throughput", "period", "makespan") and w is not None and \
                "umfpack" in str(want_law.get("solver")):
            assert got_law[k] == pytest.approx(w, rel=1e-9), k
        elif k != "residual":
            assert got_law[k] == w, k
    # with a simulation, a law that is not phase-type drives it alone
    got = streamtp.graph(path, simulate=5, law=law, firings=200)
    want = cli_json("graph", path, "--simulate", 5, "--law", law, "--firings", 200)[0]
    assert list(got) == list(want)
    assert ("exact_law" in got) == (law != "gamma:cv=0.5")


def test_graph_max_states_and_dict():
    path = rel("examples", "graphs", "barrier.json")
    got = streamtp.graph(path, max_states=3)
    same(got, cli_json("graph", path, "--max-states", 3)[0])
    assert got["exponential"]["throughput"] is None and "3" in got["exponential"]["reason"]
    with open(path) as f:
        from_dict = streamtp.graph(json.load(f))
    assert from_dict.pop("file") == "<graph>"
    want = cli_json("graph", path)[0]
    want.pop("file")
    same(from_dict, want)
    # barrier.json: the deterministic period is the critical cycle w3 -> sync,
    # 4 + 0.5 (its times in the file), one token.
    assert from_dict["deterministic"]["period"] == 4.5


BAD_GRAPHS = [p for p in sorted(glob.glob(rel("tests", "cli", "inputs", "graphs", "*.json")))
              if os.path.basename(p) not in ("example-a-strict.json", "wide.json")]


@pytest.mark.parametrize("path", BAD_GRAPHS)
def test_graph_errors_are_the_commands(path):
    with pytest.raises(streamtp.Error) as e:
        streamtp.graph(path)
    assert str(e.value) == cli_error("graph", path)
    assert e.value.input_error


def test_graph_argument_errors():
    with pytest.raises(TypeError):
        streamtp.graph(3)
    with pytest.raises(streamtp.Error, match="law: "):
        streamtp.graph(GRAPHS[0], simulate=5, law="gama")
    with pytest.raises(streamtp.Error, match="simulate must be >= 1"):
        streamtp.graph(GRAPHS[0], simulate=0)
