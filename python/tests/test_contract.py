"""The run contract from Python (include/streamtp_base.h, stp_control;
docs/guide/python.md): integers out of range (beyond the C type they go
into, where ctypes would wrap 2**64 + 2 to 2 without a word, or beyond what
the command line accepts) are refused with streamtp.Error (EINVAL) naming
the argument, paths holding a NUL byte are refused (the C library would
open the path cut at the NUL), Ctrl-C stops a running computation
within a second through the library's cancel hook, and a memory budget
refuses what would exceed it.  Run by ctest (python) like test_streamtp.py."""
import json
import os
import signal
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import streamtp  # noqa: E402

FORK_JOIN = os.path.join(ROOT, "examples", "graphs", "fork-join.json")
MAPPING = os.path.join(ROOT, "examples", "example-a.json")


def parallel_chains(k, length):
    """k independent chains of `length` transitions: (length + 1)^k order
    ideals, a long exact computation when both are large."""
    trans, places = [], []
    for c in range(k):
        for i in range(length):
            trans.append({"name": f"c{c}_{i}", "time": 1 + 0.1 * c + 0.01 * i})
            if i:
                places.append({"from": f"c{c}_{i - 1}", "to": f"c{c}_{i}"})
    return {"name": "chains", "transitions": trans, "places": places}


@pytest.mark.parametrize("call, name", [
    (lambda: streamtp.reduce(2 ** 64 + 5, 1, 2), "n"),
    (lambda: streamtp.reduce(5, 1, 2, max_reducers=-1), "max_reducers"),
    (lambda: streamtp.reduce(5, 1, 2, max_transfers=2 ** 64), "max_transfers"),
    (lambda: streamtp.bcast_model(2 ** 64 + 2, 1, 1), "P"),
    (lambda: streamtp.bcast_model(4, 1, 1, k=-1), "k"),
    (lambda: streamtp.graph(FORK_JOIN, simulate=3, seed=2 ** 64), "seed"),
    (lambda: streamtp.graph(FORK_JOIN, max_states=2 ** 64), "max_states"),
    (lambda: streamtp.graph(FORK_JOIN, simulate=2 ** 64 + 1), "simulate"),
    (lambda: streamtp.graph(FORK_JOIN, max_memory=-1), "max_memory"),
    (lambda: streamtp.evaluate(MAPPING, max_states=-5), "max_states"),
    (lambda: streamtp.simulate(MAPPING, datasets=2 ** 64), "datasets"),
    (lambda: streamtp.simulate(MAPPING, batches=2 ** 32), "batches"),
    (lambda: streamtp.simulate(MAPPING, seed=-1), "seed"),
])
def test_integers_beyond_their_c_type_are_refused(call, name):
    with pytest.raises(streamtp.Error, match=rf"^{name}: ") as info:
        call()
    assert info.value.status == "EINVAL"


def test_integer_arguments_must_be_integers():
    with pytest.raises(TypeError, match="seed must be an integer"):
        streamtp.graph(FORK_JOIN, simulate=3, seed=1.5)
    with pytest.raises(TypeError, match="max_states must be an integer"):
        streamtp.graph(FORK_JOIN, max_states=True)


def test_paths_with_a_nul_byte_are_refused(tmp_path):
    # "a.json\0b" would open a.json: refuse rather than read another file
    ok = tmp_path / "a.json"
    ok.write_text(open(FORK_JOIN).read())
    for call in (streamtp.graph, streamtp.evaluate, streamtp.bcast, streamtp.bcast_partition):
        args = (str(ok) + "\0b",) if call is not streamtp.bcast_partition else (str(ok) + "\0b", 1)
        with pytest.raises(streamtp.Error, match="NUL byte"):
            call(*args)


def test_the_largest_fitting_values_reach_the_library():
    # 2**64 - 1 fits: the library, not ctypes, gets it
    assert streamtp.reduce(5, 1, 2, simulate=2, seed=2 ** 64 - 1)["simulation"]["seed"] == 2 ** 64 - 1
    r = streamtp.graph(FORK_JOIN, simulate=2, seed=2 ** 64 - 1)
    assert r["simulation"]["seed"] == 2 ** 64 - 1


def interrupt_after(seconds):
    def fire():
        time.sleep(seconds)
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="KeyboardInterrupt reaches the main thread only")
def test_ctrl_c_stops_a_running_call_within_a_second():
    g = parallel_chains(13, 3)  # 4^13 = 67 million order ideals: minutes of work
    interrupt_after(0.5)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        streamtp.graph(g, max_states=10 ** 9, max_memory=16 << 30)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.5 + 1.0, f"stopped {elapsed:.2f} s after the call began"
    # the library is usable at once afterwards
    assert streamtp.graph(FORK_JOIN)["deterministic"]["makespan"] == 5.5


def test_a_call_from_another_thread_runs_there():
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", streamtp.graph(FORK_JOIN)))
    t.start()
    t.join()
    assert box["r"]["exponential"]["makespan"] == pytest.approx(7.175457875457877, rel=1e-12)


def test_the_memory_budget_refuses_before_building():
    g = parallel_chains(17, 1000)  # at least 1 + 1000 (2^17 - 1) ideals
    r = streamtp.graph(g, max_states=10 ** 12, max_memory=1 << 20)
    assert r["exponential"]["makespan"] is None
    assert "memory budget" in r["exponential"]["reason"]
    with pytest.raises(streamtp.Error, match="memory budget") as e:
        streamtp.reduce(10 ** 8, 1, 1, exp_method="none", brief=True, max_memory=1 << 30)
    assert e.value.status == "ELIMIT"


def test_reduce_refuses_each_n_before_building_its_dag():
    # n = 60: the transfers that start together already imply more ideals
    # than max_states; the reason says so, as the command's does
    r = streamtp.reduce(60, 1, 2, brief=True)
    reason = r["exponential"]["reason"]
    assert "transfers that start together give at least" in reason, reason
