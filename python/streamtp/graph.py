"""streamtp.graph: the generic event graph from Python, over the same shared
library as streamtp.evaluate.  graph() returns the object that `streamtp
graph --json` prints (docs/format.md, "graph"), key for key, without the
envelope every command line adds ("version", "limits": they describe the
command run, not the result).  The seed families (reduce, redistribute,
bcast) are in _seeds.py.

    >>> import streamtp
    >>> streamtp.graph("examples/graphs/fork-join.json")["deterministic"]["makespan"]
    5.5

Only the structures these calls need are mirrored here (include/
streamtp_graph.h).
"""
import ctypes
import json
import math
import os
import time

from . import _located
from ._lib import (Error, Law as _Law, PE as _PE, _Control, _Error, _Limit, _P, fail, fn as _fn,
                   integer, interruptible as _interruptible, path, status_name)


def _int(name, value, ctype="u64"):
    return integer(name, value, ctype=ctype)


def _raise(status, err):
    fail(status, err)


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def _num(x):
    """JSON numbers: non-finite values are null, as in the CLI."""
    return x if math.isfinite(x) else None


def _path(p):
    return path("path", p)


def _status_name(status):
    return status_name(status).encode()

__all__ = ["graph"]

_c_size = ctypes.c_size_t
_c_u64 = ctypes.c_uint64
_c_double = ctypes.c_double
_c_int = ctypes.c_int
_c_str = ctypes.c_char_p
_PS = ctypes.POINTER(_c_size)
_PD = ctypes.POINTER(_c_double)


# ---- the C structures ------------------------------------------------------------
class _GraphOptions(ctypes.Structure):
    _fields_ = [("max_states", _c_u64), ("exponential", _c_int), ("control", _Control),
                ("law", ctypes.c_void_p), ("distributed", _c_int)]


class _GraphResult(ctypes.Structure):
    _fields_ = [("is_dag", _c_int), ("det_makespan", _c_double), ("det_period", _c_double),
                ("det_throughput", _c_double), ("critical", _PS), ("critical_len", _c_size),
                ("exp_computed", _c_int), ("exp_value", _c_double), ("exp_states", _c_u64),
                ("exp_method", _c_str), ("exp_reason", ctypes.c_char * 256), ("exp_limit", _Limit),
                ("bound_lower", _c_double), ("bound_upper", _c_double),
                ("law_asked", _c_int), ("law_computed", _c_int), ("law_value", _c_double),
                ("law_states", _c_u64), ("law_method", _c_str), ("law_solver", _c_str),
                ("law_sweeps", _c_size), ("law_residual", _c_double),
                ("law_reason", ctypes.c_char * 256), ("law_limit", _Limit)]


class _SimOptions(ctypes.Structure):
    _fields_ = [("runs", _c_u64), ("seed", _c_u64), ("firings", _c_u64), ("law", _P),
                ("control", _Control)]


class _SimResult(ctypes.Structure):
    _fields_ = [("runs", _c_u64), ("mean", _c_double), ("stddev", _c_double),
                ("ci95_lo", _c_double), ("ci95_hi", _c_double)]


# ---- the functions -------------------------------------------------------------------
_PP = ctypes.POINTER(_P)
_law_spec = _fn("stp_law_spec", _c_str, _P)
_law_phases = _fn("stp_law_phases", _c_size, _P)
_graph_read_file = _fn("stp_graph_read_file", _c_int, _c_str, _PP, _PE)
_graph_read_string = _fn("stp_graph_read_string", _c_int, _c_str, _c_size, _c_str, _PP, _PE)
_graph_free = _fn("stp_graph_free", None, _P)
_graph_name = _fn("stp_graph_name", _c_str, _P)
_graph_count = _fn("stp_graph_transition_count", _c_size, _P)
_graph_tname = _fn("stp_graph_transition_name", _c_str, _P, _c_size)
_graph_options_init = _fn("stp_graph_options_init", None, ctypes.POINTER(_GraphOptions))
_graph_analyze = _fn("stp_graph_analyze", _c_int, _P, ctypes.POINTER(_GraphOptions),
                     ctypes.POINTER(_GraphResult), _PE)
_graph_result_free = _fn("stp_graph_result_free", None, ctypes.POINTER(_GraphResult))
_sim_options_init = _fn("stp_graph_sim_options_init", None, ctypes.POINTER(_SimOptions))
_graph_simulate = _fn("stp_graph_simulate", _c_int, _P, ctypes.POINTER(_SimOptions),
                      ctypes.POINTER(_SimResult), _PE)


def _check(st, err, prefix=None):
    if st != 0:
        if prefix:
            err.message = f"{prefix}: {_s(err.message)}".encode()[:1023]
        _raise(st, err)


def _usage(message):
    raise Error("EINVAL", message)


def _load(source, from_file, from_string, label, what):
    """A library object from a path or from a dict (its file's content)."""
    ptr, err = _P(), _Error()
    if isinstance(source, (str, bytes, os.PathLike)):
        st = from_file(_path(source), ctypes.byref(ptr), ctypes.byref(err))
    elif isinstance(source, dict):
        text, spans = _located.dumps(source)  # one key per line: located errors
        data = text.encode()
        st = from_string(data, len(data), label, ctypes.byref(ptr), ctypes.byref(err))
        if st != 0:  # the message cites the place in the dict, not in text never seen
            raise Error(_s(_status_name(st)), _located.relocate(_s(err.message), label.decode(),
                                                                 text, spans))
    else:
        raise TypeError(f"{what} must be a dict (a {what} file's content) or a path")
    _check(st, err)
    return ptr


def _graph_options(run, max_states, exponential=True):
    o = _GraphOptions()
    _graph_options_init(ctypes.byref(o))
    o.exponential = int(exponential)
    if max_states is not None:
        if _int("max_states", max_states) < 1:
            _usage(f"max_states must be >= 1, not {max_states}")
        o.max_states = max_states
    run.fill(o.control)
    return o


def _sim_options(run, runs, law, seed, firings=10000):
    o = _SimOptions()
    _sim_options_init(ctypes.byref(o))
    if _int("simulate", runs) < 1:
        _usage(f"simulate must be >= 1 runs, not {runs}")
    if _int("firings", firings) < 1:
        _usage(f"firings must be >= 1, not {firings}")
    o.runs, o.seed, o.firings, o.law = runs, _int("seed", seed), firings, law.ptr
    run.fill(o.control)
    return o


def _law_name(law):
    return _s(_law_spec(law.ptr)) if law.ptr else "exp"


def _sim_json(law, seed, s, dag=True):
    """The "simulation" block of cli/report.c (report_simulation): the
    estimate named by what it estimates."""
    d = {"law": _law_name(law), "runs": s.runs, "seed": seed}
    if dag:
        d["makespan"] = _num(s.mean)
    else:
        d["throughput"] = _num(s.mean)
        d["period"] = _num(1 / s.mean) if s.mean > 0 else None
    d["ci95"] = [_num(s.ci95_lo), _num(s.ci95_hi)]
    return d


# ---- graph ------------------------------------------------------------------------------
def _graph_dict(file, g, r, law):
    names = [_s(_graph_tname(g, r.critical[k])) for k in range(r.critical_len)]
    what = "makespan" if r.is_dag else "throughput"
    d = {"file": file, "name": _s(_graph_name(g)), "transitions": _graph_count(g),
         "mode": "dag" if r.is_dag else "teg"}
    if r.is_dag:
        d["deterministic"] = {"makespan": _num(r.det_makespan), "critical_path": names}
    else:
        d["deterministic"] = {"throughput": _num(r.det_throughput), "period": _num(r.det_period),
                              "critical_cycle": names}
    if r.exp_computed:
        d["exponential"] = {what: _num(r.exp_value)}
        if not r.is_dag:
            d["exponential"]["period"] = _num(1 / r.exp_value) if r.exp_value > 0 else None
        d["exponential"].update({"states": r.exp_states, "method": _s(r.exp_method)})
    else:
        d["exponential"] = {what: None, "reason": _s(r.exp_reason)}
    if r.law_asked:
        d["exact_law"] = _law_json(r, law)
    d["bounds"] = {"lower": _num(r.bound_lower), "upper": _num(r.bound_upper)}
    return d


def _exact_law(law, simulate):
    """The law whose exact value is asked (cli/cli.c, cli_exact_law): --law
    alone, or with a simulation when it is phase-type."""
    return law.ptr if law.ptr and (simulate is None or _law_phases(law.ptr)) else None


def _law_json(r, law):
    """The "exact_law" object of the graph commands (cli/report.c)."""
    what = "makespan" if r.is_dag else "throughput"
    d = {"law": _law_name(law), what: _num(r.law_value) if r.law_computed else None}
    if not r.law_computed:
        d["reason"] = _s(r.law_reason)
        return d
    if not r.is_dag:
        d["period"] = _num(1 / r.law_value)
    d.update({"method": _s(r.law_method), "states": r.law_states})
    if r.law_solver:
        d.update({"solver": _s(r.law_solver), "sweeps": r.law_sweeps,
                  "residual": _num(r.law_residual)})
    return d


def graph(source, max_states=None, simulate=None, law=None, seed=1, firings=10000, *,
          max_memory=None):
    """Analyse an event graph (a graph file's path, or a dict of its content):
    the object `streamtp graph FILE --json` prints.  max_states: largest
    exponential chain (None: 1000000); simulate: R Monte Carlo runs with
    `law` (a law spec, None: exp), `seed` and, for a timed event graph,
    `firings` counted per run.  A phase-type `law` (alone, or with a
    simulation) also gives "exact_law", the exact value under it.
    max_memory: the budget in bytes (None: 25% of the memory).  Ctrl-C stops
    the computation (KeyboardInterrupt)."""
    return _interruptible(_graph, source, max_states, simulate, law, seed, firings,
                          max_memory=max_memory)


def _graph(run, source, max_states, simulate, law, seed, firings):
    t0 = time.monotonic()
    g = _load(source, _graph_read_file, _graph_read_string, b"<graph>", "graph")
    lw = _Law(law, "law")
    try:
        file = os.fsdecode(source) if not isinstance(source, dict) else "<graph>"
        opts, err, r = _graph_options(run, max_states), _Error(), _GraphResult()
        opts.law = _exact_law(lw, simulate)
        _check(_graph_analyze(g, ctypes.byref(opts), ctypes.byref(r), ctypes.byref(err)), err)
        try:
            d = _graph_dict(file, g, r, lw)
            if simulate is not None:
                so, sr = _sim_options(run, simulate, lw, seed, firings), _SimResult()
                _check(_graph_simulate(g, ctypes.byref(so), ctypes.byref(sr),
                                       ctypes.byref(err)), err, file)
                d["simulation"] = _sim_json(lw, seed, sr, bool(r.is_dag))
            d.update({"seconds": time.monotonic() - t0, "status": "OK", "error": None})
            return d
        finally:
            _graph_result_free(ctypes.byref(r))
    finally:
        lw.free()
        _graph_free(g)
