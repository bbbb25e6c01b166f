"""_pipeline.py: mappings and their analyses from Python (evaluate,
simulate): the library's own records, as `streamtp eval --json` and
`streamtp simulate --json` print them."""
import ctypes
import json
import os

from . import _located
from ._lib import (PE, _Control, _Error, _Options, _P, _c_int, _c_size, _c_str, _c_u32, _c_u64,
                   Error, Law, check_layout, choice, fail, fn, integer, interruptible, limits_of,
                   options, path, record, status_name)

# ---- mappings ----------------------------------------------------------------------
_load_string = fn("stp_mapping_load_string", _c_int, _c_str, _c_size, _c_str,
                  ctypes.POINTER(_P), PE)
_load_file = fn("stp_mapping_load_file", _c_int, _c_str, ctypes.POINTER(_P), PE)
_mapping_free = fn("stp_mapping_free", None, _P)
_mapping_model = fn("stp_mapping_model", _c_int, _P)

MODELS = {"overlap": 0, "strict": 1}


def mapping_text(mapping, what="mapping"):
    """A mapping given as a dict, as the JSON text the library reads (json's
    C encoder: a dict costs what a file costs); None for a path."""
    if isinstance(mapping, (str, bytes, os.PathLike)):
        return None
    if not isinstance(mapping, dict):
        raise TypeError(f"{what} must be a dict (a mapping file's content) or a path, "
                        f"not {type(mapping).__name__}")
    try:
        return json.dumps(mapping, allow_nan=False).encode()
    except RecursionError:
        raise Error("EINVAL", f"<{what}>: nested too deeply") from None
    except (TypeError, ValueError) as e:  # a value JSON cannot hold: a set, a NaN, ...
        raise Error("EINVAL", f"<{what}>: {e}") from None


def relocated(load, mapping, what, st, err):
    """The error of a dict's text, at its place in the dict: the text is
    loaded again in the layout whose every key sits on its own line (one
    failed load more: errors are rare, and a dict's load stays fast)."""
    located, spans = _located.dumps(mapping)
    data, ptr, again = located.encode(), _P(), _Error()
    label = f"<{what}>".encode()
    st2 = load(data, len(data), label, ctypes.byref(ptr), ctypes.byref(again))
    if st2 == 0:  # cannot happen (the same JSON): report the first message
        fail(st, err)
    raise Error(status_name(st2), _located.relocate(again.message.decode("utf-8", "replace"),
                                                    f"<{what}>", located, spans))


class Mapping:
    """A loaded mapping (a dict or a path), freed on exit."""

    def __init__(self, mapping):
        self.ptr = _P()
        err = _Error()
        data = mapping_text(mapping)
        if data is None:
            st = _load_file(path("mapping", mapping), ctypes.byref(self.ptr), ctypes.byref(err))
            if st != 0:
                fail(st, err)
            return
        st = _load_string(data, len(data), b"<mapping>", ctypes.byref(self.ptr),
                          ctypes.byref(err))
        if st != 0:
            relocated(_load_string, mapping, "mapping", st, err)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _mapping_free(self.ptr)
        self.ptr = None

    def model(self, model):
        if model is None:
            return _mapping_model(self.ptr)
        return choice("model", model, MODELS)


# ---- evaluate -------------------------------------------------------------------------
_evaluate = fn("stp_evaluate", _c_int, _P, _c_int, ctypes.POINTER(_Options), ctypes.POINTER(_P),
               PE)
_result_free = fn("stp_result_free", None, _P)
_result_json = fn("stp_result_json", _c_int, _P, _P, ctypes.POINTER(_P), PE)


def evaluate(mapping, model=None, *, exp_method="auto", max_transitions=None, max_states=None,
             max_memory=None, law=None, progress=None):
    """Evaluate a mapping (a dict in the mapping-file format, or a file path)
    under `model` ("overlap", "strict", or "both"; default: the mapping's
    "model").  Returns the dict `streamtp eval --json` prints (a list of two
    for "both"), "version" and "limits" included.  exp_method: "auto",
    "closed-form", "ctmc" or "none"; max_transitions, max_states, max_memory
    (bytes): the limits of `eval` (None: defaults); law: a phase-type law
    spec ("erlang:k=4", "ph:fit=FILE", ...) whose exact throughput goes to
    "exact_law", as with `eval --law` (None: the mapping's "laws", if any).
    progress(info) is called now and then during long solves with a dict
    {"what", "done", "estimate", "seconds"}.  Ctrl-C stops the computation
    (KeyboardInterrupt) within a second."""
    if model is not None and model != "both":
        choice("model", model, MODELS)
    return interruptible(_evaluate_all, mapping, model, exp_method, max_transitions, max_states,
                         law, max_memory=max_memory, progress=progress)


def _evaluate_all(run, mapping, model, exp_method, max_transitions, max_states, law):
    opts = options(run, max_transitions, max_states, exp_method)
    with Law(law, "law") as lw, Mapping(mapping) as mp:
        opts.law = lw.ptr
        if model == "both":
            return [_evaluate_one(mp, 0, opts), _evaluate_one(mp, 1, opts)]
        return _evaluate_one(mp, mp.model(model), opts)


def _evaluate_one(mp, model, opts):
    res, err = _P(), _Error()
    st = _evaluate(mp.ptr, model, ctypes.byref(opts), ctypes.byref(res), ctypes.byref(err))
    if st != 0:
        fail(st, err)
    try:
        return record(_result_json, mp.ptr, res, limits=limits_of(opts))
    finally:
        _result_free(res)


# ---- simulate -------------------------------------------------------------------------
class _SimOptions(ctypes.Structure):
    _fields_ = [("law", _P), ("resource_law", _P), ("associated", _c_int),
                ("datasets", _c_u64), ("warmup", _c_u64), ("batches", _c_u32),
                ("replications", _c_u32), ("seed", _c_u64), ("bounds", _c_int),
                ("eval", _Options), ("control", _Control)]


check_layout("stp_sim_options", _SimOptions)
_sim_options_init = fn("stp_sim_options_init", None, ctypes.POINTER(_SimOptions))
_simulate = fn("stp_simulate", _c_int, _P, _c_int, ctypes.POINTER(_SimOptions),
               ctypes.POINTER(_P), PE)
_sim_result_free = fn("stp_sim_result_free", None, _P)
_sim_result_json = fn("stp_sim_result_json", _c_int, _P, _P, ctypes.POINTER(_P), PE)
_SIM_AUTO = 2 ** 64 - 1
_MAX_DATASETS = 2 ** 50  # simulate --datasets and --warmup
_MAX_GROUPS = 1000000    # --batches and --replications


def simulate(mapping, model=None, *, law=None, datasets=1000000, seed=1, warmup=None,
             batches=20, replications=None, associated=False, resource_law=None, bounds=True,
             exp_method="auto", max_transitions=None, max_states=None, max_memory=None,
             progress=None):
    """Monte Carlo simulation of a mapping (dict or path) with random times:
    the dict `streamtp simulate --json` prints.  law: the default law spec
    (None: the mapping's "laws" default, else exp); warmup None: a tenth of
    a run; replications: K independent runs instead of `batches` batch
    means; bounds: also compute the exact bounds of `eval`; "version" and
    "limits" (with the seed) end the dict, as on the command's line.
    progress(info): as for evaluate.  Ctrl-C stops the runs
    (KeyboardInterrupt) within a second."""
    o = _SimOptions()
    _sim_options_init(ctypes.byref(o))
    o.datasets = integer("datasets", datasets, 2, _MAX_DATASETS)
    o.seed = integer("seed", seed)
    o.batches = integer("batches", batches, 2, _MAX_GROUPS)
    o.warmup = _SIM_AUTO if warmup is None else integer("warmup", warmup, 0, _MAX_DATASETS)
    if replications is not None:
        o.replications = integer("replications", replications, 2, _MAX_GROUPS)
    if resource_law is not None and not associated:
        raise Error("EINVAL", "resource_law needs associated=True")
    o.associated, o.bounds = int(bool(associated)), int(bool(bounds))
    if model is not None:
        choice("model", model, MODELS)
    return interruptible(_simulate_one, mapping, model, o, law, resource_law, exp_method,
                         max_transitions, max_states, max_memory=max_memory, progress=progress)


def _simulate_one(run, mapping, model, o, law, resource_law, exp_method, max_transitions,
                  max_states):
    o.eval = options(run, max_transitions, max_states, exp_method)
    run.fill(o.control)
    with Law(law, "law") as lw, Law(resource_law, "resource_law") as rl, Mapping(mapping) as mp:
        o.law, o.resource_law = lw.ptr, rl.ptr
        res, err = _P(), _Error()
        st = _simulate(mp.ptr, mp.model(model), ctypes.byref(o), ctypes.byref(res),
                       ctypes.byref(err))
        if st != 0:
            fail(st, err)
        try:
            return record(_sim_result_json, mp.ptr, res, limits=limits_of(o.eval, o.seed))
        finally:
            _sim_result_free(res)


__all__ = ["evaluate", "simulate"]
