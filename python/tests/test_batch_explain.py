"""test_batch_explain.py: streamtp.batch(..., sensitivity=, utilization=,
latency=) and streamtp.batch(..., simulate=True) against `streamtp batch
--format jsonl` with the same options: the same rows, key for key (times
apart); each row that of evaluate() / simulate() of its file; the
simulated rows the same on one worker and on three; the refusals."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import streamtp  # noqa: E402

BIN = os.environ.get("STREAMTP", os.path.join(ROOT, "build", "streamtp"))
TIMES = ("seconds", "cpu_seconds", "bounds_seconds", "firings_per_second",
         "firings_per_cpu_second")


def inputs():
    return [os.path.join(ROOT, "examples", n)
            for n in ("example-a.json", "homogeneous-2x3.json", "no-replication.json")]


def without_times(rec):
    rec = {k: v for k, v in json.loads(json.dumps(rec)).items() if k not in TIMES}
    rec.pop("components", None)
    rec.get("sensitivity_solve", {}).pop("seconds", None)
    return rec


def cli_rows(*args):
    out = subprocess.run([BIN, "batch", *inputs(), "--format", "jsonl", "-q", *args],
                         capture_output=True, text=True, check=True)
    return [without_times(json.loads(line)) for line in out.stdout.splitlines()]


def test_explain_rows_are_the_command_s_and_evaluate_s():
    rows = streamtp.batch(*inputs(), model="both", sensitivity=True, rank_by="det", top=4,
                          utilization=True, latency=True, law="erlang:k=2", jobs=2)
    want = cli_rows("--model", "both", "--sensitivity", "--rank-by", "det", "--top", "4",
                    "--utilization", "--latency", "--law", "erlang:k=2")
    assert [without_times(r) for r in rows] == want
    assert len(rows) == 6 and all(len(r["sensitivity"]) == 4 for r in rows)
    for r in rows:
        one = streamtp.evaluate(r["file"], r["model"], sensitivity=True, rank_by="det", top=4,
                                utilization=True, latency=True, law="erlang:k=2")
        assert without_times(one) == without_times(r)


def test_simulated_rows_are_the_command_s_and_simulate_s():
    kw = dict(datasets=20000, seed=11, utilization=True, latency=True)
    rows = streamtp.batch(*inputs(), model="both", simulate=True, jobs=1, **kw)
    assert [without_times(r) for r in rows] == cli_rows(
        "--model", "both", "--simulate", "-n", "20000", "--seed", "11", "--utilization",
        "--latency", "--jobs", "3")
    assert [without_times(r) for r in streamtp.batch(*inputs(), model="both", simulate=True,
                                                      jobs=3, **kw)] == \
        [without_times(r) for r in rows]
    for r in rows:
        one = streamtp.simulate(r["file"], r["model"], **kw)
        assert without_times(one) == without_times(r)
        assert r["limits"]["seed"] == 11 and r["simulation"]["seed"] == 11


def test_refusals():
    with pytest.raises(streamtp.Error, match="not with simulate"):
        streamtp.batch(*inputs(), simulate=True, sensitivity=True)
    with pytest.raises(streamtp.Error, match="need sensitivity"):
        streamtp.batch(*inputs(), top=3)
    with pytest.raises(streamtp.Error, match="need simulate"):
        streamtp.batch(*inputs(), source_rate=0.001)
