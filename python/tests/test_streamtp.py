"""Tests of the Python module streamtp (python/streamtp): every result must
be the object the command prints for the same input (`streamtp eval --json`,
`streamtp simulate --json`), key for key and bit for bit, and every error
must carry the library's message.  Run by ctest (python) with
STREAMTP = the command and STREAMTP_LIBRARY = the shared library; by hand:
    STREAMTP=build/streamtp python3 -m pytest python/tests
"""
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
EXAMPLES = os.path.join(ROOT, "examples")
TIMES = ("seconds", "cpu_seconds", "bounds_seconds", "firings_per_second",
         "firings_per_cpu_second")


def cli_json(*args):
    out = subprocess.run([BIN, *args, "--json"], check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def without_times(d):
    return {k: v for k, v in d.items() if k not in TIMES}


def example(name):
    return os.path.join(EXAMPLES, name)


FILES = ["example-a.json", "homogeneous-2x3.json", "no-replication.json",
         "strict-no-critical.json"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("model", ["overlap", "strict"])
def test_evaluate_is_eval_json(name, model):
    want = cli_json("eval", example(name), "--model", model)[0]
    got = streamtp.evaluate(example(name), model)
    assert list(got) == list(want)  # same keys, same order
    assert without_times(got) == without_times(want)
    assert json.loads(json.dumps(got)) == got  # plain JSON types only


def same_law(got, want):
    """exact_law objects alike: the same keys and texts; where UMFPACK
    solved the chain (hyperexponential laws break the levels of the
    compact solver), its digits depend on the BLAS loaded (docs/
    development.md), so the value agrees to 1e-9 and the residual is small
    on both sides."""
    assert list(got) == list(want)
    blas = "umfpack" in str(want.get("solver"))
    for k, w in want.items():
        if blas and k in ("throughput", "period") and w is not None:
            assert got[k] == pytest.approx(w, rel=1e-9), k
        elif blas and k == "residual":
            assert got[k] < 1e-9 and w < 1e-9
        else:
            assert got[k] == w, k
    return True


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("model", ["overlap", "strict"])
@pytest.mark.parametrize("law", ["erlang:k=2", "hyperexp:cv=2", "gamma:cv=0.5",
                                 "ph:fit=" + os.path.join(EXAMPLES, "measured-times.txt")])
def test_evaluate_law_is_eval_json(name, model, law):
    want = cli_json("eval", example(name), "--model", model, "--law", law)[0]
    got = streamtp.evaluate(example(name), model, law=law)
    assert list(got) == list(want)
    got_law, want_law = got.pop("exact_law"), want.pop("exact_law")
    assert without_times(got) == without_times(want)
    assert same_law(got_law, want_law)
    assert got_law["law"] == law
    if law.startswith("gamma"):
        assert got_law["throughput"] is None
    else:
        assert got_law["throughput"] is not None or "reason" in got_law


def test_evaluate_default_model_and_both():
    want = cli_json("eval", example("example-a.json"), "--model", "both")
    got = streamtp.evaluate(example("example-a.json"), "both")
    assert [without_times(g) for g in got] == [without_times(w) for w in want]
    assert streamtp.evaluate(example("example-a.json"))["model"] == "overlap"


def test_evaluate_dict_is_the_file():
    with open(example("example-a.json")) as f:
        mapping = json.load(f)
    from_dict = streamtp.evaluate(mapping, "strict")
    from_file = streamtp.evaluate(example("example-a.json"), "strict")
    assert from_dict.pop("file") == "<mapping>"
    from_file.pop("file")
    assert without_times(from_dict) == without_times(from_file)
    # The README's numbers: period 189 under Overlap, 230.72222 under Strict.
    assert streamtp.evaluate(mapping)["deterministic"]["period"] == pytest.approx(189, rel=1e-12)
    assert from_dict["deterministic"]["period"] == pytest.approx(230.72222, rel=1e-7)


def test_evaluate_options():
    r = streamtp.evaluate(example("example-a.json"), "strict", exp_method="none")
    assert r["exponential"]["throughput"] is None and r["bounds"]["lower"] is None
    want = cli_json("eval", example("example-a.json"), "--model", "strict", "--max-states", "100")
    got = streamtp.evaluate(example("example-a.json"), "strict", max_states=100)
    assert got["exponential"] == want[0]["exponential"]
    assert "100" in got["exponential"]["reason"]


def test_version_and_limits_are_those_of_the_command():
    """Every line of the command ends with "version" and "limits" (the limits
    given, the memory default resolved): so do the module's dicts."""
    a = example("example-a.json")
    want = cli_json("eval", a, "--max-states", "100", "--max-transitions", "5000000",
                    "--max-memory", "1G")[0]
    got = streamtp.evaluate(a, max_states=100, max_transitions=5000000, max_memory=2 ** 30)
    assert got["version"] == want["version"] == "0.1.0"
    assert got["limits"] == want["limits"] == {"max_transitions": 5000000, "max_states": 100,
                                               "max_memory": 2 ** 30}
    want = cli_json("simulate", a, "--datasets", "2000", "--seed", "11")[0]
    got = streamtp.simulate(a, datasets=2000, seed=11)
    assert got["limits"] == want["limits"] and got["limits"]["seed"] == 11
    assert list(got)[-2:] == ["version", "limits"]


def cli_error(path, *args):
    out = subprocess.run([BIN, "eval", path, *args], capture_output=True, text=True)
    assert out.returncode == 2
    prefix = "streamtp: error: "
    assert out.stderr.startswith(prefix)
    return out.stderr[len(prefix):].strip()


def test_errors_carry_the_library_message(tmp_path):
    with open(example("example-a.json")) as f:
        mapping = json.load(f)
    mapping["mapping"][1][1] = "P9"
    with pytest.raises(streamtp.Error) as e:
        streamtp.evaluate(mapping)
    assert e.value.status == "EINVAL" and e.value.input_error
    # The command, on a file holding the same text, says the same after the
    # place (file:line:column there, the place in the dict here).
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(mapping, indent=1))
    assert str(e.value) == "<mapping> at mapping[1][1]: " + cli_error(str(path)).split(": ", 1)[1]
    assert 'processor "P9" in mapping[1][1] is not declared' in str(e.value)


def test_other_errors(tmp_path):
    with pytest.raises(streamtp.Error, match="cannot|No such file"):
        streamtp.evaluate(str(tmp_path / "missing.json"))
    with pytest.raises(streamtp.Error, match="model: 'fast' is not one of overlap, strict"):
        streamtp.evaluate(example("example-a.json"), "fast")
    with pytest.raises(streamtp.Error, match="exp_method"):
        streamtp.evaluate(example("example-a.json"), exp_method="magic")
    with pytest.raises(TypeError):
        streamtp.evaluate(42)
    with pytest.raises(streamtp.Error) as e:
        streamtp.simulate(example("example-a.json"), law="gamma:cv=-1")
    assert str(e.value) == 'law: law "gamma:cv=-1": cv must be in [1e-06, 100], got -1'
    big = {"stages": [{"work": 1, "output": 1}] * 2, "bandwidth": 1,
           "processors": [{"name": f"P{k}", "speed": 1} for k in range(9)],
           "mapping": [["P0", "P1", "P2", "P3"], ["P4", "P5", "P6", "P7", "P8"]]}
    with pytest.raises(streamtp.Error) as e:
        streamtp.evaluate(big, "strict", max_transitions=10)
    assert e.value.status == "ELIMIT"


@pytest.mark.parametrize("args", [
    {},
    {"law": "gamma:cv=0.5", "model": "strict"},
    {"law": "det", "replications": 4, "seed": 7},
    {"law": "uniform:spread=1", "associated": True, "bounds": False},
])
def test_simulate_is_simulate_json(args):
    cli = ["simulate", example("example-a.json"), "--datasets", "20000"]
    for k, v in args.items():
        if v is True:
            cli.append("--" + k)
        elif v is False:
            cli.append("--no-" + k)
        else:
            cli += ["--" + k, str(v)]
    want = cli_json(*cli)[0]
    got = streamtp.simulate(example("example-a.json"), datasets=20000, **args)
    assert list(got) == list(want)
    assert without_times(got) == without_times(want)


def test_notebook_example_runs(tmp_path):
    """examples/python-sweep.py runs with Debian's matplotlib and writes its plot;
    every simulated point is inside the bounds up to its interval."""
    out = tmp_path / "sweep.png"
    env = dict(os.environ, MPLCONFIGDIR=str(tmp_path))
    run = subprocess.run([sys.executable, os.path.join(EXAMPLES, "python-sweep.py"), str(out)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = [l for l in run.stdout.splitlines() if l.startswith("bandwidth")]
    assert len(lines) == 11
    assert "limited by T2 transfer" in lines[0] and "limited by T1 computation" in lines[-1]


@pytest.mark.parametrize("edit, where", [
    (lambda m: m["mapping"][1].__setitem__(1, "P9"), "mapping[1][1]"),
    (lambda m: m["stages"][1].__setitem__("work", -3), "stages[1].work"),
    (lambda m: m["stages"][1].__setitem__("wrok", 3), "stages[1].wrok"),
    (lambda m: m["links"][0].__setitem__("to", "P77"), "links[0].to"),
    (lambda m: m.pop("stages"), "the top level"),
    (lambda m: m["processors"][3].__setitem__("name", "P0"), "processors[3].name"),
])
def test_errors_on_a_dict_cite_the_place_in_the_dict(edit, where, tmp_path):
    """A dict's errors name the key or value of the dict, not a line and
    column of JSON text the user never wrote; the rest of the message is the
    command's on the same content written to a file."""
    with open(example("example-a.json")) as f:
        mapping = json.load(f)
    edit(mapping)
    with pytest.raises(streamtp.Error) as e:
        streamtp.evaluate(mapping)
    assert str(e.value).startswith(f"<mapping> at {where}: "), str(e.value)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(mapping, indent=1))
    cli = cli_error(str(path))
    assert str(e.value).split(": ", 1)[1] == cli.split(": ", 1)[1].replace(str(path), "<mapping>")
    assert ":" not in str(e.value).split(" at ")[0][len("<mapping>"):]  # no line:column
