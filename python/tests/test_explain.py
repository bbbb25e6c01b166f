"""test_explain.py: streamtp.evaluate(..., sensitivity=True, utilization=True,
latency=True) and streamtp.sweep() against `streamtp eval --sensitivity
--utilization --latency --json` and `streamtp sweep --json`: the same
records, key for key (times and the solves' seconds apart)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import streamtp  # noqa: E402

BIN = os.environ.get("STREAMTP", os.path.join(ROOT, "build", "streamtp"))


def example(name):
    return os.path.join(ROOT, "examples", name)


def cli_json(*args):
    out = subprocess.run([BIN, *args, "--json"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def without_times(rec):
    rec = json.loads(json.dumps(rec))
    rec.pop("seconds", None)
    rec.get("sensitivity_solve", {}).pop("seconds", None)
    return rec


@pytest.mark.parametrize("name,model", [("example-a.json", "overlap"),
                                        ("example-a.json", "strict"),
                                        ("strict-no-critical.json", "strict")])
def test_evaluate_explain_is_eval_json(name, model):
    want = cli_json("eval", example(name), "--model", model, "--sensitivity", "--top", "5",
                    "--rank-by", "det", "--utilization", "--latency")[0]
    got = streamtp.evaluate(example(name), model, sensitivity=True, top=5, rank_by="det",
                            utilization=True, latency=True)
    assert list(got) == list(want)
    assert without_times(got) == without_times(want)
    assert len(got["sensitivity"]) == 5
    ranked = [s["deterministic"]["elasticity"] for s in got["sensitivity"]]
    assert ranked == sorted(ranked, reverse=True)


def test_explain_errors():
    with pytest.raises(streamtp.Error, match="need sensitivity"):
        streamtp.evaluate(example("example-a.json"), top=3)
    with pytest.raises(streamtp.Error):
        streamtp.evaluate(example("example-a.json"), sensitivity=True, rank_by="best")


@pytest.mark.parametrize("vary", [["bandwidth:default=0.25..4:5:log"],
                                  ["speed:P0=1..2:2", "law=erlang:k=1..2"]])
def test_sweep_is_sweep_json(vary):
    args = ["sweep", example("example-a.json")]
    for v in vary:
        args += ["--vary", v]
    want = cli_json(*args)
    got = streamtp.sweep(example("example-a.json"), vary)
    assert [without_times(g) for g in got] == [without_times(w) for w in want]
    assert len(got) == (5 if len(vary) == 1 else 4)


def test_sweep_errors():
    with pytest.raises(streamtp.Error, match="no processor"):
        streamtp.sweep(example("example-a.json"), "speed:P9=1..2")
    with pytest.raises(streamtp.Error, match="FROM..TO"):
        streamtp.sweep(example("example-a.json"), "speed:P1=1-2")


def without_sim_times(rec):
    rec = json.loads(json.dumps(rec))
    for k in ("seconds", "cpu_seconds", "bounds_seconds", "firings_per_second",
              "firings_per_cpu_second"):
        rec.pop(k, None)
    return rec


@pytest.mark.parametrize("model", ["overlap", "strict"])
def test_simulate_explain_is_simulate_json(model):
    want = cli_json("simulate", example("example-a.json"), "--model", model, "--datasets",
                    "20000", "--seed", "3", "--utilization", "--latency")[0]
    got = streamtp.simulate(example("example-a.json"), model, datasets=20000, seed=3,
                            utilization=True, latency=True)
    assert list(got) == list(want)
    assert without_sim_times(got) == without_sim_times(want)
    sim = got["latency"]["simulation"]
    assert sim["source"] == "throttled" and sim["rate_from"] == "0.95 x simulated throughput"
    assert sim["rate"] == pytest.approx(0.95 * got["simulation"]["throughput"], rel=1e-12)
    for item in got["utilization"]:
        lo, hi = item["simulation"]["ci95"]
        assert lo <= item["simulation"]["mean"] <= hi


def test_simulate_source_rate():
    got = streamtp.simulate(example("example-a.json"), law="det", datasets=1200, latency=True,
                            source_rate=0.0005)
    sim = got["latency"]["simulation"]
    assert sim["rate"] == 0.0005 and sim["rate_from"] == "given"
    assert sim["mean"] == pytest.approx(got["latency"]["deterministic"]["mean"], rel=1e-9)
    with pytest.raises(streamtp.Error, match="grows without bound"):
        streamtp.simulate(example("example-a.json"), datasets=20000, latency=True,
                          source_rate=0.01)
    with pytest.raises(streamtp.Error, match="needs latency"):
        streamtp.simulate(example("example-a.json"), source_rate=0.001)
