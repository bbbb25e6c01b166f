"""streamtp.graph: the generic event graph and the seed families (reduction
trees, broadcasts on grids of clusters) from Python, over the same shared
library as streamtp.evaluate.  Each function returns the object that the
matching command prints with --json (docs/format.md, "graph", "reduce",
"bcast"), key for key, without the envelope every command line adds
("version", "limits": they describe the command run, not the result).

    >>> import streamtp
    >>> streamtp.graph("examples/graphs/fork-join.json")["deterministic"]["makespan"]
    5.5
    >>> streamtp.reduce(5, d=1, c=2)["exponential"]["makespan"]
    8.253703703703703
    >>> [r["deterministic"]["makespan"] for r in streamtp.bcast("examples/bcast/small4.json")]
    [16.0, 17.0, ...]

Only the structures these calls need are mirrored here (include/
streamtp_graph.h, streamtp_reduce.h, streamtp_bcast.h).
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

__all__ = ["graph", "reduce"]

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


class _ReduceSpec(ctypes.Structure):
    _fields_ = [("n", _c_u64), ("d", _c_double), ("c", _c_double), ("tree", _c_int),
                ("algorithm", _c_int), ("K", _c_u64), ("control", _Control)]


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

_reduce_spec_init = _fn("stp_reduce_spec_init", None, ctypes.POINTER(_ReduceSpec), _c_u64,
                        _c_double, _c_double)
_reduce_tree_name = _fn("stp_reduce_tree_name", _c_str, _c_int)
_reduce_alg_name = _fn("stp_reduce_algorithm_name", _c_str, _c_int)
_reduce_tree_parse = _fn("stp_reduce_tree_parse", _c_int, _c_str, ctypes.POINTER(_c_int))
_reduce_build = _fn("stp_reduce_build", _c_int, ctypes.POINTER(_ReduceSpec), _PP, _PE)
_reduce_free = _fn("stp_reduce_free", None, _P)
_reduce_child = _fn("stp_reduce_child", _c_u64, _P, _c_u64)
_reduce_start = _fn("stp_reduce_transfer_start", _c_double, _P, _c_u64)
_reduce_makespan = _fn("stp_reduce_makespan", _c_double, _P)
_reduce_graph = _fn("stp_reduce_graph", _c_int, _P, _PP, _PE)
_opt_lower = _fn("stp_reduce_opt_lower", _c_double, _c_u64, _c_double, _c_double)
_opt_upper = _fn("stp_reduce_opt_upper", _c_double, _c_u64, _c_double, _c_double)
_length_bound = _fn("stp_reduce_length_bound", _c_double, ctypes.POINTER(_ReduceSpec))
_ideals_lower = _fn("stp_reduce_ideals_lower", _c_u64, _P)


_REDUCE_ALG1, _REDUCE_ALG2, _REDUCE_ALG3 = 1, 2, 3
_SIZE_MAX = 2 ** (8 * ctypes.sizeof(_c_size)) - 1

# The command's reasons (cli/cmd_reduce.c) for a missing exponential value.
_REASON_ALG2 = ("transfer limit: Algorithm 2 bounds the number of concurrent transfers, "
                "which no fixed-order DAG expresses")
_REASON_NONE = "not computed (--exp-method none)"


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
    estimate named by what it estimates, "mean" its older name (one release)."""
    d = {"law": _law_name(law), "runs": s.runs, "seed": seed}
    if dag:
        d["makespan"] = _num(s.mean)
    else:
        d["throughput"] = _num(s.mean)
        d["period"] = _num(1 / s.mean) if s.mean > 0 else None
    d["ci95"] = [_num(s.ci95_lo), _num(s.ci95_hi)]
    d["mean"] = _num(s.mean)
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


# ---- reduce -----------------------------------------------------------------------------
def _position(lo, hi, s):
    """Where the 95% interval lies in [det, exp] (cli/cmd_reduce.c)."""
    if not math.isfinite(hi):
        return "unknown"
    if s.ci95_lo > hi * (1 + 1e-9) + 1e-12:
        return "above"
    if s.ci95_hi < lo * (1 - 1e-9) - 1e-12:
        return "below"
    return "within"


def _reduce_values(spec, tree, exp, gopts, sim, lw):
    """(exp_makespan or NaN, states, reason, sim result, exact_law or None) of
    one built tree."""
    law = None
    if gopts.law:  # the exact value under the law (cli/cmd_reduce.c, law_json)
        law = {"law": _law_name(lw), "makespan": None, "reason": _REASON_ALG2} \
            if spec.algorithm == _REDUCE_ALG2 else \
            {"law": _law_name(lw), "makespan": 0.0, "method": "dag-ctmc", "states": 1}
    if spec.algorithm == _REDUCE_ALG2:
        return math.nan, 0, _REASON_ALG2, None, law
    reason = None if exp else _REASON_NONE
    if spec.n == 1:  # nothing to reduce: every value is 0, in every run
        return ((math.nan if reason else 0.0), 1, reason, _SimResult(runs=sim.runs if sim else 0),
                law)
    if not exp and sim is None and law is None:
        return math.nan, 0, reason, None, law
    # (a phase-type law asked for: the DAG is built, its own refusal speaks)
    at_least = _ideals_lower(tree) if exp and law is None else 0
    if at_least > gopts.max_states:  # refused before the DAG is built (cli/cmd_reduce.c)
        reason = (f"the exponential makespan needs more than {gopts.max_states} states (order "
                  f"ideals); its transfers that start together give at least {at_least}")
        exp = False
        if sim is None:
            return math.nan, 0, reason, None, law
    g, err = _P(), _Error()
    _check(_reduce_graph(tree, ctypes.byref(g), ctypes.byref(err)), err)
    try:
        value, states = math.nan, 0
        if exp or law is not None:
            r = _GraphResult()
            _check(_graph_analyze(g, ctypes.byref(gopts), ctypes.byref(r), ctypes.byref(err)), err)
            if exp and r.exp_computed:
                value, states = r.exp_value, r.exp_states
            elif exp:
                reason = _s(r.exp_reason)
            if law is not None:
                law = _law_json(r, lw)
            _graph_result_free(ctypes.byref(r))
        sr = None
        if sim is not None:
            sr = _SimResult()
            _check(_graph_simulate(g, ctypes.byref(sim), ctypes.byref(sr), ctypes.byref(err)),
                   err)
        return value, states, reason, sr, law
    finally:
        _graph_free(g)


def _reduce_one(spec, n, exp, gopts, sim, lw, seed, brief):
    spec.n = n
    t0 = time.monotonic()
    tree, err = _P(), _Error()
    _check(_reduce_build(ctypes.byref(spec), ctypes.byref(tree), ctypes.byref(err)), err)
    try:
        det = _reduce_makespan(tree)
        e, states, reason, sr, law = _reduce_values(spec, tree, exp, gopts, sim, lw)
        d = {"n": n, "d": float(spec.d), "c": float(spec.c),
             "tree": _s(_reduce_tree_name(spec.tree)),
             "algorithm": _s(_reduce_alg_name(spec.algorithm)),
             "K": None if spec.algorithm == _REDUCE_ALG1 else spec.K}
        if not brief:
            d["children"] = [_reduce_child(tree, i) for i in range(2, n + 1)]
            d["transfer_starts"] = [_num(_reduce_start(tree, i)) for i in range(2, n + 1)]
        d["deterministic"] = {"makespan": _num(det)}
        d["exponential"] = ({"makespan": None, "reason": reason} if reason else
                            {"makespan": _num(e), "states": states, "method": "dag-ctmc"})
        if law is not None:
            d["exact_law"] = law
        d["bounds"] = {"lower": _num(det), "upper": _num(e)}
        d["opt_bounds"] = [_num(_opt_lower(n, spec.d, spec.c)), _num(_opt_upper(n, spec.d, spec.c))]
        d["length_bound"] = _num(_length_bound(ctypes.byref(spec)))
        if sim is not None:
            rel = (sr.mean - det) / (e - det) if math.isfinite(e) and e - det > 1e-12 * e \
                else math.nan
            d["simulation"] = dict(_sim_json(lw, seed, sr), position=_position(det, e, sr),
                                   relative=_num(rel))
        d["seconds"] = time.monotonic() - t0
        return d
    finally:
        _reduce_free(tree)


def reduce(n, d, c, *, tree="optimal", max_reducers=None, max_transfers=None,
           exp_method="dag-ctmc", max_states=None, simulate=None, law=None, seed=1, brief=False,
           max_memory=None):
    """A reduction tree of Canon and Antoniu: the object `streamtp reduce --n N
    --d D --c C --json` prints; n a pair (A, B) gives the list of the range
    A..B.  max_reducers K: Algorithm 3; max_transfers K: Algorithm 2 (optimal
    tree, no exponential value); exp_method "dag-ctmc" or "none"; simulate R
    runs with `law` and `seed`; brief leaves out children and transfer_starts;
    max_memory: the budget in bytes.  Ctrl-C stops it (KeyboardInterrupt)."""
    return _interruptible(_reduce, n, d, c, tree, max_reducers, max_transfers, exp_method,
                          max_states, simulate, law, seed, brief, max_memory=max_memory)


def _reduce(run, n, d, c, tree, max_reducers, max_transfers, exp_method, max_states, simulate,
            law, seed, brief):
    lo, hi = (n, n) if isinstance(n, int) else tuple(n)
    lo, hi = _int("n", lo), _int("n", hi)
    if not 1 <= lo <= hi:
        _usage(f"n must be >= 1 (a range A..B with A <= B), not {n!r}")
    if d < 0 or c < 0 or not d + c > 0 or not math.isfinite(d + c):
        _usage(f"d and c must be finite, >= 0, one of them positive (d = {d}, c = {c})")
    spec = _ReduceSpec()
    _reduce_spec_init(ctypes.byref(spec), lo, d, c)
    run.fill(spec.control)
    t = _c_int()
    if _reduce_tree_parse(tree.encode(), ctypes.byref(t)) != 0:
        _usage(f"tree must be one of optimal, binomial, fibonacci, not {tree!r}")
    spec.tree = t.value
    if max_reducers is not None and max_transfers is not None:
        _usage("max_transfers and max_reducers exclude each other")
    if max_reducers is not None or max_transfers is not None:
        spec.algorithm = _REDUCE_ALG3 if max_reducers is not None else _REDUCE_ALG2
        spec.K = (_int("max_reducers", max_reducers) if max_reducers is not None
                  else _int("max_transfers", max_transfers))
    if exp_method not in ("dag-ctmc", "none"):
        _usage(f"exp_method must be dag-ctmc or none, not {exp_method!r}")
    if simulate is not None and spec.algorithm == _REDUCE_ALG2:
        _usage("simulate: Algorithm 2 (max_transfers) limits concurrent transfers, which no "
               "fixed-order DAG expresses")
    exp = exp_method == "dag-ctmc"
    gopts = _graph_options(run, max_states, exp)
    lw = _Law(law, "law")
    try:
        gopts.law = _exact_law(lw, simulate)
        sim = None if simulate is None else _sim_options(run, simulate, lw, seed)
        out = [_reduce_one(spec, k, exp, gopts, sim, lw, seed, brief) for k in range(lo, hi + 1)]
    finally:
        lw.free()
    return out[0] if isinstance(n, int) else out
