"""_explain.py: why a mapping has its throughput, from Python: the
members that `streamtp eval --sensitivity --utilization --latency` adds to
an evaluation's record, and `streamtp sweep`'s records, both made by the
library (streamtp_explain.h, streamtp_explain_report.h)."""
import ctypes

from ._lib import (PE, _Error, _Options, _P, _c_int, _c_size, _c_str, Error, Law, choice, fail,
                   fn, limits_of, options, record_dict)
from ._pipeline import Mapping, _evaluate, _result_free, _result_json

_RANK = {"det": 0, "exp": 1, "law": 2}


class _Members(ctypes.Structure):
    _fields_ = [("sensitivity", _P), ("top", _c_size), ("utilization", _P), ("latency", _P),
                ("critical_cycle", _P)]


_sens = fn("stp_sensitivity_compute", _c_int, _P, _c_int, ctypes.POINTER(_Options),
           ctypes.POINTER(_P), PE)
_sens_rank = fn("stp_sensitivity_rank", None, _P, _c_int)
_sens_free = fn("stp_sensitivity_result_free", None, _P)
_util = fn("stp_utilization_compute", _c_int, _P, _P, ctypes.POINTER(_P), PE)
_util_free = fn("stp_utilization_free", None, _P)
_lat = fn("stp_latency_compute", _c_int, _P, _c_size, ctypes.POINTER(_P), PE)
_lat_free = fn("stp_latency_result_free", None, _P)
_add = fn("stp_record_add_explain", _c_int, _P, ctypes.POINTER(_Members), PE)
_record_free = fn("stp_record_free", None, _P)
_vary_parse = fn("stp_vary_parse", _c_int, _c_str, ctypes.POINTER(_P), PE)
_vary_free = fn("stp_vary_free", None, _P)


def _call(f, *args):
    out, err = _P(), _Error()
    st = f(*args, ctypes.byref(out), ctypes.byref(err))
    if st != 0:
        fail(st, err)
    return out


def explained(mp, model, opts, sensitivity, rank_by, top, utilization, latency):
    """The record of one evaluation with the members asked for."""
    res = _call(_evaluate, mp.ptr, model, ctypes.byref(opts))
    held = []
    try:
        m = _Members(top=top or 0)
        if sensitivity:
            m.sensitivity = _call(_sens, mp.ptr, model, ctypes.byref(opts))
            held.append((_sens_free, m.sensitivity))
            _sens_rank(m.sensitivity, _RANK[rank_by])
        if utilization:
            m.utilization = _call(_util, mp.ptr, res)
            held.append((_util_free, m.utilization))
        if latency:
            m.latency = _call(_lat, mp.ptr, 1000)
            held.append((_lat_free, m.latency))
        rec = _call(_result_json, mp.ptr, res)
        try:
            err = _Error()
            st = _add(rec, ctypes.byref(m), ctypes.byref(err))
            if st != 0:
                fail(st, err)
            return record_dict(rec, limits_of(opts))
        finally:
            _record_free(rec)
    finally:
        for free, ptr in held:
            free(ptr)
        _result_free(res)


def explain_all(run, mapping, model, exp_method, max_transitions, max_states, law,
                sensitivity, rank_by, top, utilization, latency):
    if rank_by is not None:
        choice("rank_by", rank_by, _RANK)
    if (rank_by is not None or top is not None) and not sensitivity:
        raise Error("EINVAL", "rank_by and top need sensitivity=True")
    if top is not None and (not isinstance(top, int) or top < 1):
        raise Error("EINVAL", f"top must be an integer >= 1, not {top!r}")
    opts = options(run, max_transitions, max_states, exp_method)
    with Law(law, "law") as lw, Mapping(mapping) as mp:
        opts.law = lw.ptr
        models = [0, 1] if model == "both" else [mp.model(model)]
        out = [explained(mp, mo, opts, sensitivity, rank_by or "exp", top, utilization, latency)
               for mo in models]
        return out if model == "both" else out[0]


# ---- sweep ---------------------------------------------------------------------------------
class _Point(ctypes.Structure):
    _fields_ = [("nvary", _c_size), ("vary", ctypes.c_double * 2), ("result", _P),
                ("critical", _P), ("sim", _P)]


_point_eval = fn("stp_sweep_point_eval", _c_int, _P, _c_int, ctypes.POINTER(_P), _c_size,
                 ctypes.POINTER(_c_size), ctypes.POINTER(_Options), _P, ctypes.POINTER(_Point), PE)
_point_clear = fn("stp_sweep_point_clear", None, ctypes.POINTER(_Point))
_point_json = fn("stp_sweep_point_json", _c_int, _P, ctypes.POINTER(_P), _c_size,
                 ctypes.POINTER(_Point), ctypes.POINTER(_P), PE)


class _Vary(ctypes.Structure):  # stp_vary, for its number of points
    _fields_ = [("spec", _P), ("label", _P), ("is_law", _c_int), ("kind", _c_int),
                ("name", _P), ("law_family", _P), ("law_param", _P),
                ("from_", ctypes.c_double), ("to", ctypes.c_double), ("n", _c_size),
                ("log", _c_int)]


def _vary_n(v):
    return ctypes.cast(v, ctypes.POINTER(_Vary)).contents.n


def sweep_all(run, mapping, vary, model, exp_method, max_transitions, max_states, law):
    if isinstance(vary, str):
        vary = [vary]
    if not 1 <= len(vary) <= 2:
        raise Error("EINVAL", "vary: one or two specs")
    opts = options(run, max_transitions, max_states, exp_method)
    held = []
    try:
        for spec in vary:
            held.append(_call(_vary_parse, str(spec).encode()))
        arr = (_P * len(held))(*held)
        sizes = [_vary_n(v) for v in held]
        with Law(law, "law") as lw, Mapping(mapping) as mp:
            opts.law = lw.ptr
            models = [0, 1] if model == "both" else [mp.model(model)]
            out = []
            for mo in models:
                for k in range(sizes[0] * (sizes[1] if len(sizes) > 1 else 1)):
                    idx = (_c_size * 2)(k % sizes[0], k // sizes[0])
                    p, err = _Point(), _Error()
                    st = _point_eval(mp.ptr, mo, arr, len(held), idx, ctypes.byref(opts), None,
                                     ctypes.byref(p), ctypes.byref(err))
                    if st != 0:
                        fail(st, err)
                    try:
                        rec = _call(_point_json, mp.ptr, arr, len(held), ctypes.byref(p))
                        try:
                            out.append(record_dict(rec, limits_of(opts)))
                        finally:
                            _record_free(rec)
                    finally:
                        _point_clear(ctypes.byref(p))
            return out
    finally:
        for v in held:
            _vary_free(v)
