"""Tests of the seed families from Python (python/streamtp/_seeds.py):
streamtp.reduce, redistribute, bcast, bcast_model and bcast_partition.
Each result must be the record the command prints with --json for the same
input, key for key, in the same order, with the same JSON types, bit for
bit, "version" and "limits" included (a wall time is free); each refusal
must carry the command's message or the library's; and every function
works with no streamtp executable anywhere (one library call each).  Run
by ctest (python) like test_streamtp.py."""
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
import streamtp  # noqa: E402

BIN = os.environ.get("STREAMTP", os.path.join(ROOT, "build", "streamtp"))


def cli(*args):
    return subprocess.run([BIN, *map(str, args), "--json"], capture_output=True, text=True,
                          cwd=ROOT)


def cli_json(*args):
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def cli_error(*args):
    out = cli(*args)
    assert out.returncode == 2, out.stdout
    prefix = "streamtp: error: "
    assert out.stderr.startswith(prefix)
    return out.stderr[len(prefix):].splitlines()[0]


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


# ---- reduce --------------------------------------------------------------------------
REDUCE = [
    ({"n": 5, "d": 1, "c": 2}, []),
    ({"n": 1, "d": 1, "c": 2}, []),
    ({"n": 9, "d": 2, "c": 1, "tree": "binomial"}, ["--tree", "binomial"]),
    ({"n": 9, "d": 1, "c": 1, "tree": "fibonacci"}, ["--tree", "fibonacci"]),
    ({"n": 9, "d": 1, "c": 2, "max_reducers": 2}, ["--max-reducers", 2]),
    ({"n": 9, "d": 1, "c": 2, "max_transfers": 2}, ["--max-transfers", 2]),
    ({"n": 7, "d": 1, "c": 2, "exp_method": "none"}, ["--exp-method", "none"]),
    ({"n": 12, "d": 1, "c": 2, "max_states": 5}, ["--max-states", 5]),
    ({"n": 12, "d": 1, "c": 2, "max_states": 5, "simulate": 10},
     ["--max-states", 5, "--simulate", 10]),
    ({"n": 6, "d": 1, "c": 0.5, "simulate": 50, "law": "det", "seed": 4},
     ["--simulate", 50, "--law", "det", "--seed", 4]),
    ({"n": 1, "d": 1, "c": 2, "simulate": 20}, ["--simulate", 20]),
    ({"n": 6, "d": 1, "c": 2, "simulate": 30, "exp_method": "none"},
     ["--simulate", 30, "--exp-method", "none"]),
    ({"n": 8, "d": 1, "c": 2, "brief": True}, ["--brief"]),
    ({"n": (1, 6), "d": 1, "c": 2}, []),
    ({"n": (3, 8), "d": 1, "c": 2, "brief": True, "exp_method": "none"},
     ["--brief", "--exp-method", "none"]),
    ({"n": (2, 5), "d": 1, "c": 2, "simulate": 20, "brief": True}, ["--simulate", 20, "--brief"]),
]


@pytest.mark.parametrize("kw,args", REDUCE)
def test_reduce_is_the_commands_json(kw, args):
    kw = dict(kw)
    n, d, c = kw.pop("n"), kw.pop("d"), kw.pop("c")
    want = cli_json("reduce", "--n", n if isinstance(n, int) else "%d..%d" % n, "--d", d,
                    "--c", c, *args)
    same(streamtp.reduce(n, d, c, **kw), want if isinstance(n, tuple) else want[0])


@pytest.mark.parametrize("law", ["erlang:k=3", "hyperexp:cv=2", "gamma:cv=0.5"])
def test_reduce_exact_law_is_the_commands(law):
    # --law alone: exact_law beside the exponential value; one element,
    # Algorithm 2 and a range too; with a simulation, a law that is not
    # phase-type drives it alone
    for kw, args in [({}, []), ({"max_transfers": 2}, ["--max-transfers", 2]),
                     ({"exp_method": "none"}, ["--exp-method", "none"]),
                     ({"simulate": 20}, ["--simulate", 20])]:
        for n in (1, 7):
            if kw.get("simulate") and n == 7 and law == "gamma:cv=0.5":
                assert "exact_law" not in streamtp.reduce(n, 1, 2, law=law, **kw)
            same(streamtp.reduce(n, 1, 2, law=law, **kw),
                 cli_json("reduce", "--n", n, "--d", 1, "--c", 2, "--law", law, *args)[0])
    same(streamtp.reduce((3, 5), 1, 2, law=law),
         cli_json("reduce", "--n", "3..5", "--d", 1, "--c", 2, "--law", law))


def test_reduce_values():
    # n = 2: one transfer then one reduction, d + c; E[exp] the same sum of means.
    r = streamtp.reduce(2, 1.5, 2.5)
    assert r["deterministic"]["makespan"] == 4.0 and r["exponential"]["makespan"] == 4.0
    assert r["deterministic"]["critical_path"] == ["X2", "C1.1"]
    assert r["status"] == "OK" and r["error"] is None and "mean" not in streamtp.reduce(
        3, 1, 1, simulate=5)["simulation"]
    # the paper's Figure 1: n = 4, d = c = 1, makespan 4, three children of the sink
    r = streamtp.reduce(4, 1, 1)
    assert r["children"] == [1, 1, 1] and r["deterministic"]["makespan"] == 4.0
    # brief: no arrays, no critical path; a range without values is one sweep
    # with the same makespans as independent builds
    sweep = streamtp.reduce((1, 30), 1, 2, brief=True, exp_method="none")
    each = [streamtp.reduce(n, 1, 2, exp_method="none")["deterministic"]["makespan"]
            for n in range(1, 31)]
    assert [x["deterministic"]["makespan"] for x in sweep] == each
    assert all("children" not in x and "critical_path" not in x["deterministic"] for x in sweep)


def test_reduce_errors():
    for kw, what in [({"max_reducers": 2, "max_transfers": 2}, "exclude each other"),
                     ({"max_transfers": 2, "simulate": 10}, "Algorithm 2"),
                     ({"d": 0, "c": 0}, "one of the two times must be positive"),
                     ({"tree": "ternary"}, "tree: 'ternary' is not one of"),
                     ({"tree": "binomial", "max_transfers": 2}, "optimal tree only"),
                     ({"n": 0}, r"n: 0 is out of range \[1, 100000000\]"),
                     ({"n": (5, 3)}, "the range 5..3 is empty"),
                     ({"exp_method": "ctmc"}, "exp_method: 'ctmc' is not one of"),
                     ({"max_states": 0}, "max_states: 0 is out of range"),
                     ({"seed": 2}, "seed needs simulate=R"),
                     ({"d": -1}, "d: -1 is out of range")]:
        args = {"n": 5, "d": 1, "c": 1, **kw}
        with pytest.raises(streamtp.Error, match=what):
            streamtp.reduce(args.pop("n"), args.pop("d"), args.pop("c"), **args)
    with pytest.raises(TypeError):
        streamtp.reduce(5.0, 1, 1)


def test_a_limit_error_carries_its_detail():
    """ELIMIT names the limit, the size needed and the size allowed
    (stp_limit), and the message names no option of the command line."""
    with pytest.raises(streamtp.Error) as e:
        streamtp.reduce(10 ** 8, 1, 1, max_memory=2 ** 20)
    assert e.value.status == "ELIMIT"
    # STP_REDUCE_BYTES_PER_MACHINE = 96 bytes per machine, the estimate refused
    assert e.value.limit == {"kind": "memory", "needed": 10 ** 8 * 96, "allowed": 2 ** 20,
                             "estimate": 10 ** 8 * 96}
    assert "--" not in str(e.value), str(e.value)
    with pytest.raises(streamtp.Error) as e:
        streamtp.reduce(4, -1, 1)
    assert e.value.status == "EINVAL" and e.value.limit is None  # a bad argument, no limit


def test_reduce_progress():
    # a range reports each tree done, among the others' reports (the chains')
    seen = []
    streamtp.reduce((2, 12), 1, 2, exp_method="none", progress=seen.append)
    trees = [(i["done"], i["estimate"]) for i in seen if i["what"] == "reduction trees"]
    assert trees == [(k, 11) for k in range(1, 12)]


# ---- redistribute -----------------------------------------------------------------------
REDISTRIBUTE = [
    ({}, []),
    ({"strategy": "all"}, ["--strategy", "all"]),
    ({"strategy": "optimal", "max_steps": 12, "max_nodes": 5000},
     ["--strategy", "optimal", "--max-steps", 12, "--max-nodes", 5000]),
    ({"strategy": "all", "law": "erlang:k=2", "simulate": 50, "seed": 3},
     ["--strategy", "all", "--law", "erlang:k=2", "--simulate", 50, "--seed", 3]),
    ({"law": "gamma:cv=0.5"}, ["--law", "gamma:cv=0.5"]),
    ({"law": "gamma:cv=0.5", "simulate": 20}, ["--law", "gamma:cv=0.5", "--simulate", 20]),
    ({"M": 180, "alpha": 0.5, "beta": 2, "strategy": "caterpillar", "max_work": 1e6},
     ["--M", 180, "--alpha", 0.5, "--beta", 2, "--strategy", "caterpillar", "--max-work", 1e6]),
]


@pytest.mark.parametrize("kw,args", REDISTRIBUTE)
def test_redistribute_is_the_commands_json(kw, args):
    got = streamtp.redistribute(15, 6, 2, 3, **kw)
    same(got, cli_json("redistribute", "--P", 15, "--Q", 6, "--r", 2, "--s", 3, *args))


def test_redistribute_records():
    recs = streamtp.redistribute(P=15, Q=6, r=2, s=3, strategy="all")
    assert [r["strategy"] for r in recs] == ["stepwise", "greedy", "caterpillar"]
    # the stepwise schedule of docs/guide/redistribute.md: 10 steps, cost 20,
    # each step costing its longest message (alpha 0, beta 1)
    step = recs[0]
    assert step["deterministic"]["makespan"] == 20.0
    assert sum(max(m["length"] for m in st) for st in step["steps"]) == 20
    assert len(step["steps"]) == step["ns_opt"] == 10
    assert step["status"] == "OK" and step["error"] is None
    assert step["version"] == streamtp.__version__
    assert step["limits"]["max_nodes"] == 1000000 and step["limits"]["max_steps"] is None
    # the aliases of one release are gone
    assert "cost" not in step and "cost" not in step["exponential"]


def test_redistribute_exact_law():
    # law= alone gives "exact_law" (docs/format.md, "redistribute"): the
    # exponential law in two Coxian phases is the exponential cost; two
    # messages of one step under Erlang-2 of mean 1 take 11/8 in expectation
    (r,) = streamtp.redistribute(P=16, Q=16, r=3, s=5, law="coxian:rate=2/1,next=0.5")
    e = r["exact_law"]
    assert e["law"] == "coxian:rate=2/1,next=0.5" and e["method"] == "quadrature"
    assert math.isclose(e["makespan"], r["exponential"]["makespan"], rel_tol=1e-12)
    assert 0 <= e["estimated_error"] < 1e-12 * e["makespan"]
    shapes = {tuple(sorted(m["length"] for m in st)) for st in r["steps"]}
    assert e["step_shapes"] == len(shapes) == 3
    (r,) = streamtp.redistribute(P=2, Q=2, r=1, s=1, law="erlang:k=2")
    assert math.isclose(r["exact_law"]["makespan"], 11 / 8, rel_tol=1e-12)
    (r,) = streamtp.redistribute(P=2, Q=2, r=1, s=1, law="gamma:cv=0.5")
    assert r["exact_law"]["makespan"] is None and "not phase-type" in r["exact_law"]["reason"]
    # with a simulation, a law that is not phase-type drives it alone
    (r,) = streamtp.redistribute(P=2, Q=2, r=1, s=1, law="gamma:cv=0.5", simulate=10)
    assert "exact_law" not in r and r["simulation"]["law"] == "gamma:cv=0.5"


@pytest.mark.parametrize("kw,args", [
    ({"M": 100}, ["--M", 100]),
    ({"strategy": "class", "P": 15, "Q": 15, "r": 3, "s": 5}, ["--strategy", "class"]),
])
def test_redistribute_refusals(kw, args):
    kw = {"P": 15, "Q": 6, "r": 2, "s": 3, **kw}
    with pytest.raises(streamtp.Error) as e:
        streamtp.redistribute(**kw)
    assert e.value.status == "EINVAL"
    want = cli_error("redistribute", "--P", kw["P"], "--Q", kw["Q"], "--r", kw["r"], "--s",
                     kw["s"], *args)
    if "M" in kw:  # the command says it about its option, the library about M
        assert "not a multiple of L" in want and "not a positive multiple of L = 90" in str(e.value)
    else:
        assert str(e.value) == want


def test_redistribute_arguments():
    for kw, what in [({"P": 0}, "P: 0 is out of range [1, 1048576]"),
                     ({"r": 2 ** 40 + 1}, "r: 1099511627777 is out of range"),
                     ({"alpha": -1}, "alpha: -1 is out of range"),
                     ({"beta": 1e-200}, "beta: 1e-200 is outside"),
                     ({"strategy": "clas"}, "strategy: 'clas' is not one of"),
                     ({"max_steps": 5}, "max_steps applies to strategy='optimal' only"),
                     ({"strategy": "optimal", "max_nodes": 0}, "max_nodes: 0 is out of range"),
                     ({"simulate": 0}, "simulate: 0 is out of range"),
                     ({"seed": 3}, "seed needs simulate=R"),
                     ({"law": "gama"}, "law: ")]:
        with pytest.raises(streamtp.Error, match=what.replace("[", r"\[").replace(".", r"\.")):
            streamtp.redistribute(**{"P": 15, "Q": 6, "r": 2, "s": 3, **kw})
    with pytest.raises(TypeError):
        streamtp.redistribute(15.0, 6, 2, 3)
    with pytest.raises(TypeError):
        streamtp.redistribute(15, 6, 2, 3, alpha="0")


def test_redistribute_progress_and_interrupt():
    seen = []
    streamtp.redistribute(16, 16, 3, 5, strategy="all", law="erlang:k=3",
                          progress=seen.append)  # short: no report needed, none forbidden
    assert all(set(i) == {"what", "done", "estimate", "seconds"} for i in seen)

    def stop(info):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        streamtp.redistribute(200, 190, 7, 11, strategy="optimal", max_nodes=10 ** 9,
                              progress=stop)


# ---- bcast ------------------------------------------------------------------------------
def rel(*parts):
    # Paths relative to the repository, as a user types them: messages and
    # "file" keys then hold the same text on both sides.
    return os.path.join(*parts)


SMALL4 = rel("examples", "bcast", "small4.json")
GRID88 = rel("examples", "bcast", "grid88.json")
BCAST = [
    (SMALL4, {}, []),
    (SMALL4, {"intra": "chain", "root": "C"}, ["--intra", "chain", "--root", "C"]),
    (SMALL4, {"inter": "ecef-la", "simulate": 30, "law": "uniform:spread=0.5", "seed": 2},
     ["--inter", "ecef-la", "--simulate", 30, "--law", "uniform:spread=0.5", "--seed", 2]),
    (SMALL4, {"max_states": 10}, ["--max-states", 10]),
    (SMALL4, {"law": "erlang:k=3"}, ["--law", "erlang:k=3"]),
    (SMALL4, {"law": "hyperexp:cv=2", "inter": "fef"}, ["--law", "hyperexp:cv=2", "--inter", "fef"]),
    (SMALL4, {"law": "gamma:cv=0.5", "inter": "flat", "simulate": 20},
     ["--law", "gamma:cv=0.5", "--inter", "flat", "--simulate", 20]),
    (SMALL4, {"law": "erlang:k=3", "inter": "flat", "simulate": 20},
     ["--law", "erlang:k=3", "--inter", "flat", "--simulate", 20]),
    (GRID88, {"size": 1048576}, ["--size", 1048576]),
    (GRID88, {"size": 100, "intra": "flat", "inter": "bottomup"},
     ["--size", 100, "--intra", "flat", "--inter", "bottomup"]),
]


@pytest.mark.parametrize("path,kw,args", BCAST)
def test_bcast_is_the_commands_json(path, kw, args):
    want = cli_json("bcast", path, *args)
    got = streamtp.bcast(path, **kw)
    same(got, want if kw.get("inter", "all") == "all" else want[0])


def test_bcast_exact_law_and_simulation():
    # a law that is not phase-type drives the simulation alone; a phase-type
    # one gives its exact makespan too, within the N.B.U.E. bounds for Erlang
    got = streamtp.bcast(SMALL4, "flat", law="gamma:cv=0.5", simulate=20)
    assert "exact_law" not in got and got["simulation"]["law"] == "gamma:cv=0.5"
    got = streamtp.bcast(SMALL4, "flat", law="erlang:k=3")
    assert got["bounds"]["lower"] <= got["exact_law"]["makespan"] <= got["bounds"]["upper"]
    assert "mean" not in streamtp.bcast(SMALL4, "flat", simulate=5)["simulation"]


def test_bcast_dict_and_errors():
    with open(SMALL4) as f:
        platform = json.load(f)
    got = streamtp.bcast(platform, "flat")
    want = cli_json("bcast", SMALL4, "--inter", "flat")[0]
    assert got.pop("file") == "<platform>"
    want.pop("file")
    same(got, want)
    # small4, flat: A sends to B, C, D in turn, held 4, 1, 2 (its g row);
    # D's send starts at 5 and lands L = 4 after its gap, at 11; then D's
    # binomial broadcast inside, ceil(log2 2) g = 5: makespan 16 (B: 5 + 10).
    assert got["deterministic"]["makespan"] == 16.0
    assert got["status"] == "OK" and got["error"] is None
    with pytest.raises(streamtp.Error, match="size: required"):
        streamtp.bcast(GRID88)
    with pytest.raises(streamtp.Error, match='no cluster "Z"'):
        streamtp.bcast(SMALL4, root="Z")
    with pytest.raises(streamtp.Error, match="inter: 'best' is not one of"):
        streamtp.bcast(SMALL4, "best")
    for kw, what in [({"size": 0.5}, "size: 0.5 is out of range"),
                     ({"max_states": 0}, "max_states: 0 is out of range"),
                     ({"simulate": 0}, "simulate: 0 is out of range"),
                     ({"seed": 2}, "seed needs simulate=R"),
                     ({"intra": "tree"}, "intra: 'tree' is not one of")]:
        with pytest.raises(streamtp.Error, match=what):
            streamtp.bcast(SMALL4, **kw)
    with pytest.raises(TypeError):
        streamtp.bcast(3)


BAD_PLATFORMS = sorted(glob.glob(rel("tests", "cli", "inputs", "bcast", "*.json")))


@pytest.mark.parametrize("path", BAD_PLATFORMS)
def test_bcast_errors_are_the_commands(path):
    with pytest.raises(streamtp.Error) as e:
        streamtp.bcast(path)
    assert str(e.value) == cli_error("bcast", path)


@pytest.mark.parametrize("kw,args", [
    ({"P": 8, "L": 1, "g": 2}, []),
    ({"P": 13, "L": 0.5, "g": 3, "k": 4, "gs": 1, "g1": 0.25},
     ["--k", 4, "--gs", 1, "--g1", 0.25]),
])
def test_bcast_model_is_the_commands_json(kw, args):
    want = cli_json("bcast", "--model", "--P", kw["P"], "--L", kw["L"], "--g", kw["g"], *args)[0]
    same(streamtp.bcast_model(**kw), want)


def test_bcast_model_values_and_errors():
    # Table 1, P = 8, L = 1, g = 2: flat L + (P - 1) g = 15, chain (P - 1)(g + L) = 21,
    # binomial ceil(log2 8) g + floor(log2 8) L = 9 (the (max,+) trees agree)
    a = streamtp.bcast_model(8, 1, 2)["algorithms"]
    assert (a["flat"]["dag"], a["chain"]["dag"], a["binomial"]["dag"]) == (15.0, 21.0, 9.0)
    for kw, what in [({"P": 1}, "P: 1 is out of range"), ({"k": 0}, "k: 0 is out of range"),
                     ({"L": -1}, "L: -1 is out of range"), ({"g1": 1e-300}, "g1: 1e-300 is outside")]:
        with pytest.raises(streamtp.Error, match=what):
            streamtp.bcast_model(**{"P": 8, "L": 1, "g": 2, **kw})
    with pytest.raises(streamtp.Error, match="above the memory budget"):
        streamtp.bcast_model(10 ** 6, 1, 2, max_memory=1 << 20)


def test_bcast_partition_is_the_commands_json(tmp_path):
    csv = rel("examples", "bcast", "grid88-latency.csv")
    for rho in (0.05, 0.2, 1.0):
        same(streamtp.bcast_partition(csv, rho),
             cli_json("bcast", "--partition", csv, "--rho", rho)[0])
    # A matrix in memory: two pairs 1 apart, 10 between them.
    m = [[0, 1, 10, 10], [1, 0, 10, 10], [10, 10, 0, 1], [10, 10, 1, 0]]
    got = streamtp.bcast_partition(m, 0.5)
    assert got["clusters"] == [[0, 1], [2, 3]] and got["sizes"] == [2, 2]
    path = tmp_path / "m.csv"
    path.write_text("".join(",".join(map(str, row)) + "\n" for row in m))
    want = cli_json("bcast", "--partition", path, "--rho", 0.5)[0]
    want["file"] = "<latency>"
    same(got, want)
    for bad in glob.glob(rel("tests", "cli", "inputs", "bcast", "*.csv")):
        with pytest.raises(streamtp.Error) as e:
            streamtp.bcast_partition(bad, 0.1)
        assert str(e.value) == cli_error("bcast", "--partition", bad, "--rho", 0.1)
    with pytest.raises(streamtp.Error, match="rho: -1 is out of range"):
        streamtp.bcast_partition(csv, -1)


# ---- one vocabulary --------------------------------------------------------------------
OLD_FORMS = ["E[makespan] <=", "for N.B.U.E. times", "N.B.U.E. interval", "interval [",
             "none: ", "95% [", "95% interval", "exp_makespan", "opt_lower", "sim_mean",
             "exp. cost", "law cost"]
TEXTS = [
    ["reduce", "--n", 6, "--d", 1, "--c", 2, "--law", "erlang:k=2", "--simulate", 50],
    ["reduce", "--n", 9, "--d", 1, "--c", 1, "--max-transfers", 2, "--law", "erlang:k=2"],
    ["reduce", "--n", "1..6", "--d", 1, "--c", 1, "--simulate", 50],
    ["reduce", "--n", "1..6", "--d", 1, "--c", 1, "--exp-method", "none"],
    ["redistribute", "--P", 4, "--Q", 6, "--r", 3, "--s", 2, "--law", "erlang:k=2",
     "--simulate", 50],
    ["redistribute", "--P", 4, "--Q", 6, "--r", 3, "--s", 2, "--strategy", "all", "--law",
     "erlang:k=2", "--simulate", 50],
    ["bcast", SMALL4, "--simulate", 50, "--law", "erlang:k=2"],
    ["bcast", SMALL4, "--inter", "ecef", "--max-states", 3],
]


@pytest.mark.parametrize("args", TEXTS)
def test_text_reports_speak_the_glossary(args):
    # the N.B.U.E. interval is "N.B.U.E. bounds [a, b]", a missing value
    # "not computed: REASON", a confidence interval "95% CI [lo, hi]",
    # table columns the JSON paths (docs/format.md, Glossary)
    out = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    for old in OLD_FORMS:
        assert old not in out.stdout, (old, out.stdout)
    assert any(new in out.stdout for new in ("N.B.U.E. bounds [", "deterministic.makespan",
                                             "not computed: "))
    if "--simulate" in args and "all" not in args and ".." not in str(args[2]):
        assert "95% CI [" in out.stdout


# ---- no executable ------------------------------------------------------------------------
def test_no_executable_needed(tmp_path):
    # Each function is one library call: with no streamtp on PATH and no
    # STREAMTP_COMMAND, they all still work.
    script = (
        "import shutil, streamtp\n"
        "assert shutil.which('streamtp') is None\n"
        "print(len(streamtp.reduce((1, 9), 1, 2, simulate=10)))\n"
        "print(len(streamtp.redistribute(4, 6, 3, 2, strategy='all', simulate=10)))\n"
        "print(len(streamtp.bcast('examples/bcast/small4.json', simulate=10)))\n"
        "print(streamtp.bcast_model(8, 1, 2)['algorithms']['flat']['dag'])\n"
        "print(streamtp.bcast_partition('examples/bcast/grid88-latency.csv', 0.2)['sizes'][0])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("STREAMTP", "STREAMTP_COMMAND")}
    env["PATH"] = str(tmp_path)  # an empty directory: no streamtp, no other program
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    env.setdefault("STREAMTP_LIBRARY", os.path.join(ROOT, "build", "libstreamtp.so.0"))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["9", "3", "7", "15.0", "31"]
