"""streamtp.graph: the generic event graph from Python, over the same shared
library as streamtp.evaluate.  graph() returns the record that `streamtp
graph --json` prints (docs/format.md, "graph"), "version" and "limits"
included: the library's own (stp_graph_result_json), from the same calls
as the command's.  The seed families (reduce, redistribute, bcast) are in
_seeds.py.

    >>> import streamtp
    >>> streamtp.graph("examples/graphs/fork-join.json")["deterministic"]["makespan"]
    5.5

Only the option structures are mirrored (include/streamtp_graph.h, their
layout checked against the library); the results are the library's bytes,
handed back to it.
"""
import ctypes
import os
import time

from . import _located
from ._lib import (Error, Law, PE, _Control, _Error, _P, _c_double, _c_int, _c_size, _c_str,
                   _c_u64, _struct_size, check_layout, fail, fn, integer, interruptible, path,
                   record, status_name)

__all__ = ["graph"]


# ---- the option structures ----------------------------------------------------------
class _GraphOptions(ctypes.Structure):
    _fields_ = [("max_states", _c_u64), ("exponential", _c_int), ("control", _Control),
                ("law", _P), ("distributed", _c_int)]


class _SimOptions(ctypes.Structure):
    _fields_ = [("runs", _c_u64), ("seed", _c_u64), ("firings", _c_u64), ("law", _P),
                ("control", _Control)]


check_layout("stp_graph_options", _GraphOptions)
check_layout("stp_graph_sim_options", _SimOptions)
# The results, held as bytes of the library's size, never mirrored.
_RESULT_SIZE = _struct_size(b"stp_graph_result")
_SIM_RESULT_SIZE = _struct_size(b"stp_graph_sim_result")

# ---- the functions -------------------------------------------------------------------
_PP = ctypes.POINTER(_P)
_law_phases = fn("stp_law_phases", _c_size, _P)
_graph_read_file = fn("stp_graph_read_file", _c_int, _c_str, _PP, PE)
_graph_read_string = fn("stp_graph_read_string", _c_int, _c_str, _c_size, _c_str, _PP, PE)
_graph_free = fn("stp_graph_free", None, _P)
_graph_options_init = fn("stp_graph_options_init", None, ctypes.POINTER(_GraphOptions))
_graph_analyze = fn("stp_graph_analyze", _c_int, _P, ctypes.POINTER(_GraphOptions), _P, PE)
_graph_result_free = fn("stp_graph_result_free", None, _P)
_sim_options_init = fn("stp_graph_sim_options_init", None, ctypes.POINTER(_SimOptions))
_graph_simulate = fn("stp_graph_simulate", _c_int, _P, ctypes.POINTER(_SimOptions), _P, PE)
_graph_result_json = fn("stp_graph_result_json", _c_int, _c_str, _P,
                        ctypes.POINTER(_GraphOptions), _P, _P, ctypes.POINTER(_SimOptions), _P,
                        _c_double, _PP, PE)


def _load(source):
    """The graph of a path or of a dict (a graph file's content), a dict's
    error cited at its place in the dict, not in text never seen."""
    ptr, err = _P(), _Error()
    if isinstance(source, (str, bytes, os.PathLike)):
        st = _graph_read_file(path("path", source), ctypes.byref(ptr), ctypes.byref(err))
    elif isinstance(source, dict):
        text, spans = _located.dumps(source)  # one key per line: located errors
        data = text.encode()
        st = _graph_read_string(data, len(data), b"<graph>", ctypes.byref(ptr), ctypes.byref(err))
        if st != 0:
            raise Error(status_name(st), _located.relocate(err.message.decode("utf-8", "replace"),
                                                           "<graph>", text, spans))
    else:
        raise TypeError("graph must be a dict (a graph file's content) or a path")
    if st != 0:
        fail(st, err)
    return ptr


def _graph_options(run, max_states):
    o = _GraphOptions()
    _graph_options_init(ctypes.byref(o))
    if max_states is not None:
        if integer("max_states", max_states) < 1:
            raise Error("EINVAL", f"max_states must be >= 1, not {max_states}")
        o.max_states = max_states
    run.fill(o.control)
    return o


def _sim_options(run, runs, law, seed, firings):
    o = _SimOptions()
    _sim_options_init(ctypes.byref(o))
    if integer("simulate", runs) < 1:
        raise Error("EINVAL", f"simulate must be >= 1 runs, not {runs}")
    if integer("firings", firings) < 1:
        raise Error("EINVAL", f"firings must be >= 1, not {firings}")
    o.runs, o.seed, o.firings, o.law = runs, integer("seed", seed), firings, law.ptr
    run.fill(o.control)
    return o


def _exact_law(law, simulate):
    """The law whose exact value is asked (cli/options.c, cli_exact_law): law
    alone, or with a simulation when it is phase-type."""
    return law.ptr if law.ptr and (simulate is None or _law_phases(law.ptr)) else None


def graph(source, max_states=None, simulate=None, law=None, seed=1, firings=10000, *,
          max_memory=None):
    """Analyse an event graph (a graph file's path, or a dict of its content):
    the record `streamtp graph FILE --json` prints.  max_states: largest
    exponential chain (None: 1000000); simulate: R Monte Carlo runs with
    `law` (a law spec, None: exp), `seed` and, for a timed event graph,
    `firings` counted per run.  A phase-type `law` (alone, or with a
    simulation) also gives "exact_law", the exact value under it.
    max_memory: the budget in bytes (None: 25% of the memory).  Ctrl-C stops
    the computation (KeyboardInterrupt)."""
    return interruptible(_graph, source, max_states, simulate, law, seed, firings,
                         max_memory=max_memory)


def _graph(run, source, max_states, simulate, law, seed, firings):
    t0 = time.monotonic()
    g = _load(source)
    try:
        with Law(law, "law") as lw:
            file = os.fsdecode(source) if not isinstance(source, dict) else "<graph>"
            opts = _graph_options(run, max_states)
            opts.law = _exact_law(lw, simulate)
            so = None if simulate is None else _sim_options(run, simulate, lw, seed, firings)
            r, err = ctypes.create_string_buffer(_RESULT_SIZE), _Error()
            st = _graph_analyze(g, ctypes.byref(opts), r, ctypes.byref(err))
            if st != 0:
                fail(st, err)
            try:
                return _result(g, file, opts, r, lw, so, t0)
            finally:
                _graph_result_free(r)
    finally:
        _graph_free(g)


def _result(g, file, opts, r, lw, so, t0):
    sr, err = ctypes.create_string_buffer(_SIM_RESULT_SIZE), _Error()
    if so is not None:
        st = _graph_simulate(g, ctypes.byref(so), sr, ctypes.byref(err))
        if st != 0:
            fail(st, err, file)
    return record(_graph_result_json, os.fsencode(file), g, ctypes.byref(opts), r, lw.ptr,
                  ctypes.byref(so) if so is not None else None, sr, time.monotonic() - t0)
