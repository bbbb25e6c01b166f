"""streamtp: throughput of replicated streaming pipelines, from Python.

A thin ctypes layer over the shared library libstreamtp (no compiler needed,
nothing to build at install time).  Mappings are the dicts of a mapping file
(docs/format.md), or the path of one; results are the dicts that
`streamtp eval --json` and `streamtp simulate --json` print, with the same
keys and values.

    >>> import streamtp
    >>> r = streamtp.evaluate("examples/example-a.json")
    >>> r["deterministic"]["period"]
    189.0

Errors of the library (a bad mapping, a size limit, an unknown law) raise
streamtp.Error with the library's message, e.g.
`<mapping>:5:28: processor "P9" in mapping[1][1] is not declared`.

The library is found, in this order: $STREAMTP_LIBRARY (a path), the
directory recorded at install time (_config.py), the build/ directory of
the source tree this package sits in, then the system's search path.
"""
import ctypes
import ctypes.util
import json
import math
import numbers
import os
import threading

from . import _located

__all__ = ["Error", "evaluate", "simulate", "optimize", "library_path"]

_c_size = ctypes.c_size_t
_c_u64 = ctypes.c_uint64
_c_double = ctypes.c_double
_c_int = ctypes.c_int
_c_str = ctypes.c_char_p


class Error(Exception):
    """A failure reported by libstreamtp: .status is its kind ("EINVAL",
    "ELIMIT", ...), str(e) the library's message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # pickled with its status: raised in a worker process, it arrives whole
        return (Error, (self.status, str(self)))

    @property
    def input_error(self):
        """True when the input is at fault (the CLI's exit status 2)."""
        return self.status not in ("ENOMEM", "ENUMERIC", "EINTERNAL", "EINTERRUPTED")


# ---- the C structures (include/streamtp_base.h, streamtp.h) ----------------
class _Error(ctypes.Structure):
    _fields_ = [("status", _c_int), ("message", ctypes.c_char * 1024)]


class _Cancel(ctypes.Structure):
    _fields_ = [("fn", ctypes.c_void_p), ("data", ctypes.c_void_p)]


class _Progress(ctypes.Structure):
    _fields_ = [("fn", ctypes.c_void_p), ("data", ctypes.c_void_p)]


class _Control(ctypes.Structure):
    _fields_ = [("cancel", _Cancel), ("progress", _Progress), ("max_memory", _c_u64)]


class _Options(ctypes.Structure):
    _fields_ = [("max_transitions", _c_u64), ("max_states", _c_u64), ("exp_method", _c_int),
                ("solver_tolerance", _c_double), ("control", _Control),
                ("law", ctypes.c_void_p), ("distributed", _c_int)]


class _LawFit(ctypes.Structure):
    _fields_ = [("samples", _c_size), ("order", ctypes.c_uint32), ("phases", ctypes.c_uint32),
                ("p", _c_double), ("rate", _c_double * 2), ("sample_moments", _c_double * 3),
                ("law_moments", _c_double * 3), ("moment_error", _c_double), ("ks", _c_double)]


class _LawResult(ctypes.Structure):
    _fields_ = [("asked", _c_int), ("available", _c_int), ("law", _c_str),
                ("ncolumns", _c_size), ("column_law", ctypes.POINTER(_c_str)),
                ("throughput", _c_double), ("period", _c_double), ("method", _c_str),
                ("states", _c_u64), ("residual", _c_double), ("solver", _c_str),
                ("sweeps", _c_size), ("reason", _c_str), ("fitted", _c_int), ("fit", _LawFit)]


class _Component(ctypes.Structure):
    _fields_ = [("kind", _c_int), ("stage", _c_size), ("index", _c_size), ("g", _c_size),
                ("u", _c_size), ("v", _c_size), ("senders", ctypes.POINTER(_c_size)),
                ("receivers", ctypes.POINTER(_c_size)), ("det_throughput", _c_double),
                ("exp_throughput", _c_double), ("exp_method", _c_str), ("states", _c_u64),
                ("residual", _c_double), ("limits_det", _c_int), ("limits_exp", _c_int),
                ("law_throughput", _c_double)]


class _Result(ctypes.Structure):
    _fields_ = [("model", _c_int), ("nstages", _c_size), ("replication", ctypes.POINTER(_c_size)),
                ("paths", _c_u64), ("det_throughput", _c_double), ("det_period", _c_double),
                ("max_cycle_time", _c_double), ("ncritical", _c_size),
                ("critical", ctypes.POINTER(_c_str)), ("mct_resource", _c_str),
                ("exp_available", _c_int), ("exp_throughput", _c_double),
                ("exp_period", _c_double), ("exp_method", _c_str), ("exp_states", _c_u64),
                ("exp_residual", _c_double), ("exp_solver", _c_str),
                ("exp_sweeps", _c_size), ("exp_reason", _c_str), ("lower", _c_double),
                ("upper", _c_double), ("ncomponents", _c_size),
                ("components", ctypes.POINTER(_Component)), ("seconds", _c_double),
                ("exact_law", _LawResult)]


class _SimOptions(ctypes.Structure):
    _fields_ = [("law", ctypes.c_void_p), ("resource_law", ctypes.c_void_p),
                ("associated", _c_int), ("datasets", _c_u64), ("warmup", _c_u64),
                ("batches", ctypes.c_uint32), ("replications", ctypes.c_uint32),
                ("seed", _c_u64), ("bounds", _c_int), ("eval", _Options), ("control", _Control)]


class _SimResult(ctypes.Structure):
    _fields_ = [("model", _c_int), ("throughput", _c_double), ("period", _c_double),
                ("ci_low", _c_double), ("ci_high", _c_double), ("stddev", _c_double),
                ("groups", ctypes.c_uint32), ("replicated", _c_int), ("datasets", _c_u64),
                ("warmup", _c_u64), ("simulated", _c_u64), ("firings", _c_u64),
                ("seed", _c_u64), ("associated", _c_int), ("law", _c_str),
                ("resource_law", _c_str), ("ncolumns", _c_size),
                ("column_law", ctypes.POINTER(_c_str)), ("nbue", _c_int), ("lower", _c_double),
                ("upper", _c_double), ("bounds_reason", _c_str), ("position", _c_str),
                ("relative", _c_double), ("seconds", _c_double), ("cpu_seconds", _c_double),
                ("bounds_seconds", _c_double), ("law_exact", _c_double),
                ("law_states", _c_u64)]


# ---- loading the library ------------------------------------------------------
def _candidates():
    env = os.environ.get("STREAMTP_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _config
        yield os.path.join(_config.LIBDIR, "libstreamtp.so.0")
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "libstreamtp.so.0")
    found = ctypes.util.find_library("streamtp")
    if found:
        yield found
    yield "libstreamtp.so.0"


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("streamtp: cannot find libstreamtp (set STREAMTP_LIBRARY); tried "
                      + ", ".join(tried))


_lib, library_path = _load()


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_P = ctypes.c_void_p
_PE = ctypes.POINTER(_Error)
_status_name = _fn("stp_status_name", _c_str, _c_int)
_version = _fn("stp_version", _c_str)
_memory_budget = _fn("stp_options_memory_budget", _c_u64, ctypes.POINTER(_Options))
_load_string = _fn("stp_mapping_load_string", _c_int, _c_str, _c_size, _c_str,
                   ctypes.POINTER(_P), _PE)
_load_file = _fn("stp_mapping_load_file", _c_int, _c_str, ctypes.POINTER(_P), _PE)
_mapping_free = _fn("stp_mapping_free", None, _P)
_mapping_file = _fn("stp_mapping_file", _c_str, _P)
_mapping_name = _fn("stp_mapping_name", _c_str, _P)
_mapping_model = _fn("stp_mapping_model", _c_int, _P)
_stage_count = _fn("stp_mapping_stage_count", _c_size, _P)
_stage_name = _fn("stp_mapping_stage_name", _c_str, _P, _c_size)
_proc_name = _fn("stp_mapping_processor_name", _c_str, _P, _c_size)
_team_size = _fn("stp_mapping_team_size", _c_size, _P, _c_size)
_team_member = _fn("stp_mapping_team_member", _c_size, _P, _c_size, _c_size)
_paths = _fn("stp_mapping_paths", _c_int, _P, ctypes.POINTER(_c_u64), _PE)
_model_parse = _fn("stp_model_parse", _c_int, _c_str, ctypes.POINTER(_c_int))
_options_init = _fn("stp_options_init", None, ctypes.POINTER(_Options))
_evaluate = _fn("stp_evaluate", _c_int, _P, _c_int, ctypes.POINTER(_Options),
                ctypes.POINTER(ctypes.POINTER(_Result)), _PE)
_result_free = _fn("stp_result_free", None, ctypes.POINTER(_Result))
_law_parse = _fn("stp_law_parse", _c_int, _c_str, _c_str, ctypes.POINTER(_P), _PE)
_law_free = _fn("stp_law_free", None, _P)
_sim_options_init = _fn("stp_sim_options_init", None, ctypes.POINTER(_SimOptions))
_simulate = _fn("stp_simulate", _c_int, _P, _c_int, ctypes.POINTER(_SimOptions),
                ctypes.POINTER(ctypes.POINTER(_SimResult)), _PE)
_sim_result_free = _fn("stp_sim_result_free", None, ctypes.POINTER(_SimResult))
_interval_position = _fn("stp_interval_position", _c_str, _c_double, _c_double, _c_double,
                         _c_double)

_cancel_flag = ctypes.cast(_lib.stp_cancel_flag, ctypes.c_void_p).value

_EXP_METHODS = {"auto": 0, "closed-form": 1, "ctmc": 2, "none": 3}

# ---- what every call checks and obeys ---------------------------------------------
_C_RANGES = {"u64": (0, 2 ** 64 - 1), "u32": (0, 2 ** 32 - 1),
             "size": (0, 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1)}


def _int(name, value, ctype="u64"):
    """An integer argument within the range of the C type it goes into:
    ctypes would wrap 2**64 + 5 to 5 without a word."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    lo, hi = _C_RANGES[ctype]
    if not lo <= value <= hi:
        raise OverflowError(f"{name} = {value} is outside {lo} .. {hi}, the range of its C type")
    return int(value)


def _path(p):
    """A path as the bytes the C library opens; a NUL byte would end it there
    and name another file."""
    b = os.fsencode(p)
    if b"\0" in b:
        raise ValueError(f"embedded null byte in the path {p!r}")
    return b


class _Run:
    """The run contract of one call (include/streamtp_base.h, stp_control):
    Ctrl-C reaches the C computation through a flag it polls, and the memory
    budget (bytes; None: the library's default)."""

    def __init__(self, max_memory=None):
        self.flag = ctypes.c_int(0)
        self.max_memory = None if max_memory is None else _int("max_memory", max_memory)

    def fill(self, control):
        control.cancel.fn = _cancel_flag
        control.cancel.data = ctypes.addressof(self.flag)
        if self.max_memory is not None:
            control.max_memory = self.max_memory
        return control


def _interruptible(body, *args, max_memory=None, **kw):
    """body(run, *args, **kw), run in a worker thread when called from the
    main thread, so that Ctrl-C (KeyboardInterrupt, raised in the main
    thread only) sets the flag the C code polls at once instead of waiting
    for the call to return; the computation stops at its next poll and the
    KeyboardInterrupt goes on."""
    run = _Run(max_memory)
    if threading.current_thread() is not threading.main_thread():
        return body(run, *args, **kw)
    box = {}

    def work():
        try:
            box["value"] = body(run, *args, **kw)
        except BaseException as e:  # noqa: B036 - handed to the caller
            box["error"] = e

    t = threading.Thread(target=work, name="streamtp", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.1)
    except KeyboardInterrupt:
        run.flag.value = 1
        while t.is_alive():  # a fraction of a second: the next poll
            try:
                t.join(0.1)
            except KeyboardInterrupt:
                pass
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]
_SIM_AUTO = 2 ** 64 - 1


def _raise(status, err):
    raise Error(_status_name(status).decode(), err.message.decode("utf-8", "replace"))


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def _num(x):
    """JSON numbers: non-finite values are null, as in the CLI."""
    return x if math.isfinite(x) else None


class _Mapping:
    """A loaded mapping (freed on exit)."""

    def __init__(self, mapping):
        self.ptr = _P()
        err = _Error()
        if isinstance(mapping, (str, bytes, os.PathLike)):
            st = _load_file(_path(mapping), ctypes.byref(self.ptr), ctypes.byref(err))
        elif isinstance(mapping, dict):
            # One key per line: the reader's line numbers then point at it,
            # and its messages are turned into the place in the dict.
            text, spans = _located.dumps(mapping)
            data = text.encode()
            st = _load_string(data, len(data), b"<mapping>", ctypes.byref(self.ptr),
                              ctypes.byref(err))
            if st != 0:
                raise Error(_status_name(st).decode(),
                            _located.relocate(_s(err.message), "<mapping>", text, spans))
        else:
            raise TypeError("mapping must be a dict (a mapping file's content) or a path")
        if st != 0:
            _raise(st, err)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _mapping_free(self.ptr)
        self.ptr = None

    def model(self, model):
        if model is None:
            return _mapping_model(self.ptr)
        m = _c_int()
        if _model_parse(model.encode(), ctypes.byref(m)) != 0:
            raise Error("EINVAL", f'model must be "overlap" or "strict", not "{model}"')
        return m.value

    def head(self, model):
        p = self.ptr
        paths = _c_u64()
        ok = _paths(p, ctypes.byref(paths), None) == 0
        return {"file": _s(_mapping_file(p)), "name": _s(_mapping_name(p)),
                "model": "strict" if model == 1 else "overlap",
                "replication": [_team_size(p, i) for i in range(_stage_count(p))],
                "paths": paths.value if ok else None}


def _options(max_transitions, max_states, exp_method, run):
    o = _Options()
    _options_init(ctypes.byref(o))
    if max_transitions is not None:
        o.max_transitions = _int("max_transitions", max_transitions)
    if max_states is not None:
        o.max_states = _int("max_states", max_states)
    run.fill(o.control)
    if exp_method not in _EXP_METHODS:
        raise Error("EINVAL", f"exp_method must be one of {', '.join(_EXP_METHODS)}, "
                              f"not {exp_method!r}")
    o.exp_method = _EXP_METHODS[exp_method]
    return o


def _stamp(d, opts, seed=None):
    """The keys every JSON line of the command ends with (cli/report.c,
    report_json_line): the library's version and the limits of the run, the
    memory budget with its default resolved."""
    limits = {"max_transitions": opts.max_transitions, "max_states": opts.max_states,
              "max_memory": _memory_budget(ctypes.byref(opts))}
    if seed is not None:
        limits["seed"] = seed
    d["version"] = _s(_version())
    d["limits"] = limits
    return d


def _fit_dict(f):
    return {"samples": f.samples, "order": f.order, "phases": f.phases, "p": _num(f.p),
            "rates": [_num(f.rate[0]), _num(f.rate[1])],
            "sample_moments": [_num(x) for x in f.sample_moments],
            "law_moments": [_num(x) for x in f.law_moments],
            "moment_error": _num(f.moment_error), "ks": _num(f.ks)}


def _law_dict(mp, lr):
    """The "exact_law" object of `eval --json` (cli/report.c, law_json)."""
    d = {"law": _s(lr.law), "throughput": _num(lr.throughput) if lr.available else None}
    if lr.available:
        d.update({"period": _num(lr.period), "method": _s(lr.method), "states": lr.states,
                  "residual": _num(lr.residual)})
        if lr.solver:
            d["solver"], d["sweeps"] = _s(lr.solver), lr.sweeps
    else:
        d["reason"] = _s(lr.reason) or "unknown"
    laws = [_s(lr.column_law[c]) for c in range(lr.ncolumns)]
    if any(x != d["law"] for x in laws):
        stages, transfers = {}, {}
        for c, x in enumerate(laws):
            (transfers if c % 2 else stages)[_s(_stage_name(mp.ptr, c // 2))] = x
        d["laws"] = {"stages": stages, "transfers": transfers}
    if lr.fitted:
        d["fit"] = _fit_dict(lr.fit)
    return d


def _component(mp, c, law=False):
    names = lambda arr, n: [_s(_proc_name(mp.ptr, arr[k])) for k in range(n)]
    transfer = c.kind == 1
    d = {"kind": "transfer" if transfer else "computation",
         "stage": _s(_stage_name(mp.ptr, c.stage)), "index": c.index, "g": c.g, "u": c.u,
         "v": c.v}
    senders = names(c.senders, c.u)
    if transfer:
        receivers = names(c.receivers, c.v)
        d["processors"] = senders + receivers
        d["senders"], d["receivers"] = senders, receivers
    else:
        d["processors"] = senders
    # Key order of `eval --json`: processors come before senders there.
    order = ["kind", "stage", "index", "g", "u", "v", "senders", "receivers", "processors"]
    d = {k: d[k] for k in order if k in d}
    d.update({"states": c.states, "residual": _num(c.residual),
              "deterministic": _num(c.det_throughput), "exponential": _num(c.exp_throughput),
              "method": _s(c.exp_method),
              "limits": {"deterministic": bool(c.limits_det), "exponential": bool(c.limits_exp)}})
    if law:
        d["exact_law"] = _num(c.law_throughput)
    return d


def _result_dict(mp, r):
    d = mp.head(r.model)
    d["deterministic"] = {
        "throughput": _num(r.det_throughput), "period": _num(r.det_period),
        "max_cycle_time": _num(r.max_cycle_time),
        "critical_resource": _s(r.critical[0]) if r.ncritical else None,
        "critical_resources": [_s(r.critical[k]) for k in range(r.ncritical)],
        "max_cycle_time_resource": _s(r.mct_resource)}
    if r.exp_available:
        d["exponential"] = {"throughput": _num(r.exp_throughput), "period": _num(r.exp_period),
                            "method": _s(r.exp_method), "states": r.exp_states,
                            "residual": _num(r.exp_residual)}
        if r.exp_solver:
            d["exponential"]["solver"] = _s(r.exp_solver)
            d["exponential"]["sweeps"] = r.exp_sweeps
    else:
        d["exponential"] = {"throughput": None, "reason": _s(r.exp_reason) or "unknown"}
    d["bounds"] = {"lower": _num(r.lower) if r.exp_available else None, "upper": _num(r.upper)}
    law = bool(r.exact_law.asked)
    if law:
        d["exact_law"] = _law_dict(mp, r.exact_law)
    if r.ncomponents:
        d["components"] = [_component(mp, r.components[k], law) for k in range(r.ncomponents)]
    d["seconds"] = _num(r.seconds)
    d["status"], d["error"] = "OK", None
    return d


def evaluate(mapping, model=None, *, exp_method="auto", max_transitions=None, max_states=None,
             max_memory=None, law=None):
    """Evaluate a mapping (a dict in the mapping-file format, or a file path)
    under `model` ("overlap", "strict", or "both"; default: the mapping's
    "model").  Returns the dict `streamtp eval --json` prints (a list of two
    for "both"), "version" and "limits" included.  exp_method: "auto",
    "closed-form", "ctmc" or "none"; max_transitions, max_states, max_memory
    (bytes): the limits of `eval` (None: defaults); law: a phase-type law
    spec ("erlang:k=4", "ph:fit=FILE", ...) whose exact throughput goes to
    "exact_law", as with `eval --law` (None: the mapping's "laws", if any).
    Ctrl-C stops the computation (KeyboardInterrupt) within a second."""
    return _interruptible(_evaluate_all, mapping, model, exp_method, max_transitions, max_states,
                          law, max_memory=max_memory)


def _evaluate_all(run, mapping, model, exp_method, max_transitions, max_states, law):
    opts = _options(max_transitions, max_states, exp_method, run)
    lw = _Law(law, "law")
    try:
        opts.law = lw.ptr
        with _Mapping(mapping) as mp:
            if model == "both":
                return [_evaluate_one(mp, 0, opts), _evaluate_one(mp, 1, opts)]
            return _evaluate_one(mp, mp.model(model), opts)
    finally:
        lw.free()


def _evaluate_one(mp, model, opts):
    res = ctypes.POINTER(_Result)()
    err = _Error()
    st = _evaluate(mp.ptr, model, ctypes.byref(opts), ctypes.byref(res), ctypes.byref(err))
    if st != 0:
        _raise(st, err)
    try:
        return _stamp(_result_dict(mp, res.contents), opts)
    finally:
        _result_free(res)


class _Law:
    def __init__(self, spec, what):
        self.ptr = _P()
        if spec is None:
            return
        err = _Error()
        st = _law_parse(spec.encode(), None, ctypes.byref(self.ptr), ctypes.byref(err))
        if st != 0:
            raise Error(_status_name(st).decode(), f"{what}: {_s(err.message)}")

    def free(self):
        if self.ptr:
            _law_free(self.ptr)


def _sim_dict(mp, r):
    stages, transfers = {}, {}
    for c in range(r.ncolumns):
        (transfers if c % 2 else stages)[_s(_stage_name(mp.ptr, c // 2))] = _s(r.column_law[c])
    d = {"file": _s(_mapping_file(mp.ptr)), "name": _s(_mapping_name(mp.ptr)),
         "model": "strict" if r.model == 1 else "overlap", "law": _s(r.law),
         "laws": {"stages": stages, "transfers": transfers}, "associated": bool(r.associated),
         "resource_law": _s(r.resource_law), "nbue": None if r.nbue < 0 else bool(r.nbue)}
    sim = {"law": _s(r.law), "throughput": _num(r.throughput), "period": _num(r.period),
           "ci95": [_num(r.ci_low), _num(r.ci_high)], "stddev": _num(r.stddev),
           "method": "replications" if r.replicated else "batch-means",
           "replications" if r.replicated else "batches": r.groups,
           "datasets": r.datasets, "warmup": r.warmup, "simulated": r.simulated,
           "firings": r.firings, "seed": r.seed, "position": _s(r.position),
           "relative": _num(r.relative)}
    bounds = {"lower": _num(r.lower), "upper": _num(r.upper), "position": _s(r.position),
              "relative": _num(r.relative)}
    if r.bounds_reason:
        bounds["reason"] = _s(r.bounds_reason)
    d.update({"simulation": sim, "bounds": bounds})
    if math.isfinite(r.law_exact):  # the exact value under the simulated laws
        d["exact_law"] = {"law": _s(r.law), "throughput": _num(r.law_exact),
                          "period": _num(1 / r.law_exact), "states": r.law_states,
                          "position": _s(_interval_position(r.law_exact, r.law_exact,
                                                            r.ci_low, r.ci_high))}
    d.update({"seconds": _num(r.seconds),
              "cpu_seconds": _num(r.cpu_seconds), "bounds_seconds": _num(r.bounds_seconds),
              "firings_per_second": _num(r.firings / r.seconds) if r.seconds > 0 else None,
              "firings_per_cpu_second":
                  _num(r.firings / r.cpu_seconds) if r.cpu_seconds > 0 else None,
              "status": "OK", "error": None})
    return d


def simulate(mapping, model=None, *, law=None, datasets=1000000, seed=1, warmup=None,
             batches=20, replications=None, associated=False, resource_law=None, bounds=True,
             exp_method="auto", max_transitions=None, max_states=None, max_memory=None):
    """Monte Carlo simulation of a mapping (dict or path) with random times:
    the dict `streamtp simulate --json` prints.  law: the default law spec
    (None: the mapping's "laws" default, else exp); warmup None: a tenth of
    a run; replications: K independent runs instead of `batches` batch
    means; bounds: also compute the exact bounds of `eval`; "version" and
    "limits" (with the seed) end the dict, as on the command's line.  Ctrl-C
    stops the runs (KeyboardInterrupt) within a second."""
    return _interruptible(_simulate_one, mapping, model, law, datasets, seed, warmup, batches,
                          replications, associated, resource_law, bounds, exp_method,
                          max_transitions, max_states, max_memory=max_memory)


def _simulate_one(run, mapping, model, law, datasets, seed, warmup, batches, replications,
                  associated, resource_law, bounds, exp_method, max_transitions, max_states):
    o = _SimOptions()
    _sim_options_init(ctypes.byref(o))
    o.datasets, o.seed = _int("datasets", datasets), _int("seed", seed)
    o.batches = _int("batches", batches, "u32")
    o.warmup = _SIM_AUTO if warmup is None else _int("warmup", warmup)
    o.replications = _int("replications", replications or 0, "u32")
    o.associated, o.bounds = int(bool(associated)), int(bool(bounds))
    o.eval = _options(max_transitions, max_states, exp_method, run)
    run.fill(o.control)
    laws = [_Law(law, "law"), _Law(resource_law, "resource_law")]
    try:
        o.law, o.resource_law = laws[0].ptr, laws[1].ptr
        with _Mapping(mapping) as mp:
            res = ctypes.POINTER(_SimResult)()
            err = _Error()
            st = _simulate(mp.ptr, mp.model(model), ctypes.byref(o), ctypes.byref(res),
                           ctypes.byref(err))
            if st != 0:
                _raise(st, err)
            try:
                return _stamp(_sim_dict(mp, res.contents), o.eval, o.seed)
            finally:
                _sim_result_free(res)
    finally:
        for lw in laws:
            lw.free()


# ---- choosing the mapping (include/streamtp_optimize.h) -----------------------
class _OptimizeOptions(ctypes.Structure):
    _fields_ = [("model", _c_int), ("objective", _c_int), ("method", _c_int),
                ("max_team", _c_size), ("use", _c_str), ("fix", ctypes.POINTER(_c_str)),
                ("nfix", _c_size), ("time_limit", _c_double), ("max_evaluations", _c_u64),
                ("seed", _c_u64), ("eval", _Options), ("progress", ctypes.c_void_p),
                ("progress_data", ctypes.c_void_p)]


class _OptimizeResult(ctypes.Structure):
    _fields_ = [("mapping", _P), ("eval", ctypes.POINTER(_Result)), ("model", _c_int),
                ("objective", _c_int), ("method", _c_str), ("value", _c_double),
                ("optimal", _c_int), ("upper_bound", _c_double), ("gap", _c_double),
                ("evaluated", _c_u64), ("nodes", _c_u64), ("skipped", _c_u64),
                ("start", _c_double), ("constructive", _c_double), ("interrupted", _c_int),
                ("timed_out", _c_int), ("note", _c_str), ("seconds", _c_double)]


_problem_load_string = _fn("stp_problem_load_string", _c_int, _c_str, _c_size, _c_str,
                           ctypes.POINTER(_P), _PE)
_problem_load_file = _fn("stp_problem_load_file", _c_int, _c_str, ctypes.POINTER(_P), _PE)
_problem_free = _fn("stp_problem_free", None, _P)
_problem_model = _fn("stp_problem_model", _c_int, _P)
_optimize_options_init = _fn("stp_optimize_options_init", None, ctypes.POINTER(_OptimizeOptions))
_objective_parse = _fn("stp_objective_parse", _c_int, _c_str, ctypes.POINTER(_c_int))
_method_parse = _fn("stp_optimize_method_parse", _c_int, _c_str, ctypes.POINTER(_c_int))
_optimize = _fn("stp_optimize", _c_int, _P, ctypes.POINTER(_OptimizeOptions),
                ctypes.POINTER(ctypes.POINTER(_OptimizeResult)), _PE)
_optimize_result_free = _fn("stp_optimize_result_free", None, ctypes.POINTER(_OptimizeResult))


def _load_problem(problem):
    ptr, err = _P(), _Error()
    if isinstance(problem, (str, os.PathLike)):
        st = _problem_load_file(os.fsencode(problem), ctypes.byref(ptr), ctypes.byref(err))
    elif isinstance(problem, dict):
        text = json.dumps(problem, indent=1).encode()
        st = _problem_load_string(text, len(text), b"<problem>", ctypes.byref(ptr),
                                  ctypes.byref(err))
    else:
        raise TypeError("problem must be a dict (a mapping file's content) or a path")
    if st != 0:
        _raise(st, err)
    return ptr


def _choice(parse, value, what, names):
    out = _c_int()
    if parse(value.encode(), ctypes.byref(out)) != 0:
        raise Error("EINVAL", f"{what} must be one of {', '.join(names)}, not {value!r}")
    return out.value


def _fix_specs(fix):
    """{"T2": ["P1", "P3"]} or ["T2=P1,P3", ...] -> the library's strings."""
    if fix is None:
        return []
    if isinstance(fix, dict):
        return [f"{stage}={','.join(procs)}" for stage, procs in fix.items()]
    return list(fix)


def _optimize_dict(res, opts):
    mp = _Mapping.__new__(_Mapping)  # borrowed: the result owns the mapping
    mp.ptr = res.mapping
    ev = _result_dict(mp, res.eval.contents)
    names = lambda i: [_s(_proc_name(mp.ptr, _team_member(mp.ptr, i, k)))
                       for k in range(_team_size(mp.ptr, i))]
    d = {k: ev[k] for k in ("file", "name", "model")}
    d.update({"mapping": [names(i) for i in range(_stage_count(mp.ptr))],
              "objective": "exp" if res.objective == 1 else "det",
              "value": _num(res.value), "optimal": bool(res.optimal),
              "upper_bound": _num(res.upper_bound), "gap": _num(res.gap),
              "evaluated": res.evaluated, "nodes": res.nodes, "skipped": res.skipped,
              "method": _s(res.method), "seconds": _num(res.seconds),
              "start": _num(res.start), "constructive": _num(res.constructive),
              "interrupted": bool(res.interrupted), "timed_out": bool(res.timed_out),
              "note": _s(res.note)})
    for k in ("replication", "paths", "deterministic", "exponential", "bounds", "components",
              "status", "error"):
        if k in ev:
            d[k] = ev[k]
    return _stamp(d, opts.eval, opts.seed)


def optimize(problem, objective="det", method="auto", *, model=None, max_team=None, use=None,
             fix=None, time_limit=None, max_evaluations=None, seed=1, exp_method="auto",
             max_transitions=None, max_states=None, max_memory=None):
    """The mapping of best throughput for a problem: a mapping file's dict
    (its "mapping" optional: the starting point when given) or a path.
    objective: "det" or "exp" (the throughput guaranteed for every
    N.B.U.E. law); method: "auto", "exact", "heuristic" or "random";
    model: "overlap" or "strict" (default: the problem's); max_team: the
    largest team; use: the processors allowed ("P1,P2" or a list); fix:
    teams kept as given ({"T2": ["P1", "P3"]}); time_limit (seconds) and
    max_evaluations stop the search with the best so far; seed: the
    heuristic's.  Returns the dict `streamtp optimize --json` prints.  Ctrl-C
    stops the search (KeyboardInterrupt) within a second."""
    return _interruptible(_optimize_run, problem, objective, method, model, max_team, use, fix,
                          time_limit, max_evaluations, seed, exp_method, max_transitions,
                          max_states, max_memory=max_memory)


def _optimize_run(run, problem, objective, method, model, max_team, use, fix, time_limit,
                  max_evaluations, seed, exp_method, max_transitions, max_states):
    o = _OptimizeOptions()
    _optimize_options_init(ctypes.byref(o))
    o.eval = _options(max_transitions, max_states, exp_method, run)
    o.objective = _choice(_objective_parse, objective, "objective", ("det", "exp"))
    o.method = _choice(_method_parse, method, "method",
                       ("auto", "exact", "heuristic", "random"))
    o.max_team = _int("max_team", max_team or 0, "size")
    if use is not None:
        use = ",".join(use) if not isinstance(use, str) else use
        o.use = use.encode()
    specs = [f.encode() for f in _fix_specs(fix)]
    fixes = (_c_str * max(len(specs), 1))(*specs)
    o.fix, o.nfix = ctypes.cast(fixes, ctypes.POINTER(_c_str)), len(specs)
    o.time_limit = time_limit or 0.0
    o.max_evaluations = _int("max_evaluations", max_evaluations or 0)
    o.seed = _int("seed", seed)
    ptr = _load_problem(problem)
    try:
        if model is None:
            o.model = _problem_model(ptr)
        else:
            o.model = _choice(_model_parse, model, "model", ("overlap", "strict"))
        res, err = ctypes.POINTER(_OptimizeResult)(), _Error()
        st = _optimize(ptr, ctypes.byref(o), ctypes.byref(res), ctypes.byref(err))
        if st != 0:
            _raise(st, err)
        try:
            return _optimize_dict(res.contents, o)
        finally:
            _optimize_result_free(res)
    finally:
        _problem_free(ptr)


# The generic event graph and the seed families (streamtp.graph): imported
# last, since that module builds on the helpers above.
from .graph import bcast, bcast_model, bcast_partition, graph, reduce  # noqa: E402

__all__ += ["graph", "reduce", "bcast", "bcast_model", "bcast_partition"]

# The other commands, through the streamtp executable (streamtp.command).
from ._command import batch, command, ctmc, generate, redistribute, teg  # noqa: E402

__all__ += ["command", "teg", "ctmc", "redistribute", "generate", "batch"]
