"""Tests of the commands reached through the executable (streamtp.command and
ctmc) and of generate and batch: options become the command's,
its JSON records come back as dicts, its errors as streamtp.Error, and the
values agree with closed forms and with the library functions (evaluate).
"""
import math
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("STREAMTP_COMMAND", os.environ.get("STREAMTP", os.path.join(ROOT, "build",
                                                                                   "streamtp")))
import streamtp  # noqa: E402

EXAMPLE_A = os.path.join(ROOT, "examples", "example-a.json")


def test_every_command_is_reachable():
    for name in ("evaluate", "simulate", "optimize", "graph", "reduce", "bcast", "teg", "ctmc",
                 "redistribute", "generate", "batch", "command"):
        assert callable(getattr(streamtp, name)) and name in streamtp.__all__


def test_generate_and_batch_agree_with_evaluate(tmp_path):
    got = streamtp.generate(str(tmp_path / "g"), stages=3, processors=6, count=3, seed=3)
    files = got["files"]
    assert [os.path.basename(f) for f in files] == ["map-00001.json", "map-00002.json",
                                                   "map-00003.json"]
    assert (got["written"], got["unchanged"]) == (3, 0)
    again = streamtp.generate(str(tmp_path / "g"), stages=3, processors=6, count=3, seed=3)
    assert (again["written"], again["unchanged"], again["files"]) == (0, 3, files)  # a rerun
    rows = streamtp.batch(*files, model="both", exp_method="none")
    assert len(rows) == 6 and all(r["status"] == "OK" for r in rows)
    for row in rows:
        ev = streamtp.evaluate(row["file"], row["model"], exp_method="none")
        assert row["deterministic"]["throughput"] == ev["deterministic"]["throughput"]


def test_errors_are_streamtp_errors(tmp_path):
    with pytest.raises(streamtp.Error) as e:
        streamtp.command("redistribute", P=15, Q=6, r=2, s=3, strategy="clas")
    assert e.value.status == "EINVAL" and "did you mean 'class'" in str(e.value)
    streamtp.generate(str(tmp_path / "g"), stages=2, processors=3)
    with pytest.raises(streamtp.Error) as e:
        streamtp.generate(str(tmp_path / "g"), stages=2, processors=3, seed=2)
    assert "from another run" in str(e.value) and "force" in str(e.value)
    assert streamtp.generate(str(tmp_path / "g"), stages=2, processors=3, seed=2,
                             force=True)["written"] == 1


def test_text_output_and_flags():
    text = streamtp.command("eval", EXAMPLE_A, json_lines=False, exp_method="none")
    assert "deterministic   throughput 0.0052910053" in text
