"""Hostile arguments to the Python module (issue 34): each is checked as the
command line checks it, and fails with TypeError (wrong type) or
streamtp.Error (a value out of range, a NUL byte, a nesting too deep), never
with AttributeError, OverflowError or RecursionError, and never by silently
reading something else (a path cut at a NUL).  The expected messages are the
CLI's, so that the two stay worded alike.  Run by ctest (python)."""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import streamtp  # noqa: E402

EXAMPLE_A = os.path.join(ROOT, "examples", "example-a.json")

WRONG_TYPES = [
    (streamtp.evaluate, {"law": 5}, "law must be a string, not int"),
    (streamtp.evaluate, {"law": b"exp"}, "law must be a string, not bytes"),
    (streamtp.optimize, {"objective": None}, "objective must be a string, not NoneType"),
    (streamtp.optimize, {"method": 1}, "method must be a string, not int"),
    # a string is a sequence of one-letter names: "AB" would be the team [A, B]
    (streamtp.optimize, {"fix": {"T1": "AB"}}, "fix['T1'] must be a list of processor names"),
]


@pytest.mark.parametrize("fn,kw,message", WRONG_TYPES)
def test_a_wrong_type_is_a_type_error(fn, kw, message):
    with pytest.raises(TypeError, match=message.replace("[", r"\[").replace("(", r"\(")):
        fn(EXAMPLE_A, **kw)


OUT_OF_RANGE = [
    # the CLI's ranges: --max-memory >= 1M, --max-team >= 1, --time-limit >= 0.001
    (streamtp.optimize, {"max_memory": 0}, "max_memory: 0 is out of range [1048576,"),
    (streamtp.optimize, {"max_memory": 1}, "max_memory: 1 is out of range [1048576,"),
    (streamtp.optimize, {"max_team": 0}, "max_team: 0 is out of range [1,"),
    (streamtp.optimize, {"time_limit": -5}, "time_limit: -5 is out of range [0.001, 1e+09]"),
    (streamtp.optimize, {"time_limit": 0}, "time_limit: 0 is out of range [0.001, 1e+09]"),
    (streamtp.optimize, {"time_limit": 0.0005}, "time_limit: 0.0005 is out of range"),
    (streamtp.simulate, {"datasets": -3}, "datasets: -3 is out of range [2,"),
]


@pytest.mark.parametrize("fn,kw,message", OUT_OF_RANGE)
def test_a_value_out_of_range_is_an_error(fn, kw, message):
    with pytest.raises(streamtp.Error) as e:
        fn(EXAMPLE_A, **kw)
    assert message in str(e.value)


NUL_BYTES = [
    (streamtp.evaluate, {"law": "exp\x00junk"}, "law: a NUL byte in"),
    (streamtp.optimize, {"use": ["P0\x00", "P1"]}, "use: a NUL byte in"),
    (streamtp.optimize, {"fix": {"T1": ["P0\x00"]}}, "fix['T1']: a NUL byte in"),
]


@pytest.mark.parametrize("fn,kw,message", NUL_BYTES)
def test_a_nul_byte_in_a_string_is_refused(fn, kw, message):
    with pytest.raises(streamtp.Error) as e:
        fn(EXAMPLE_A, **kw)
    assert message in str(e.value)


def test_a_path_with_a_nul_byte_is_not_cut_there():
    # "example-a.json\0.json" once read example-a.json, silently
    for fn in (streamtp.evaluate, streamtp.optimize):
        with pytest.raises(streamtp.Error) as e:
            fn(EXAMPLE_A + "\x00.json")
        assert "a NUL byte in the path" in str(e.value)


def test_a_nul_byte_inside_a_sample_file_is_refused(tmp_path):
    # a NUL inside a number dropped that sample from the fit, silently
    samples = tmp_path / "samples.txt"
    samples.write_bytes(b"1\n2\n3\x004\n5\n")
    with pytest.raises(streamtp.Error) as e:
        streamtp.evaluate(EXAMPLE_A, law=f"ph:fit={samples}")
    assert f"{samples}:3:2: a NUL byte" in str(e.value)


def test_a_dict_nested_3000_deep_is_an_error_not_a_recursion_error():
    with open(EXAMPLE_A) as f:
        problem = json.load(f)
    deep = {}
    for _ in range(3000):
        deep = {"a": deep}
    problem["extra"] = deep
    with pytest.raises(streamtp.Error) as e:
        streamtp.evaluate(problem)
    assert "nested too deeply" in str(e.value)
