"""_lib.py: libstreamtp loaded, and what every call of the module shares:
the error type, argument checks, the run contract (Ctrl-C, progress, the
memory budget) and results as the library's own records.

Results are never rebuilt here: every function asks the library for the
record of its result (include/streamtp_report.h) and returns json.loads of
it, the object the command prints with --json.  Only the option structures
are mirrored with ctypes, and each is checked against the size the loaded
library reports (stp_struct_size), so that a library of another layout is
refused at import instead of being handed garbage.
"""
import ctypes
import ctypes.util
import json
import math
import numbers
import os
import threading

_c_size = ctypes.c_size_t
_c_u64 = ctypes.c_uint64
_c_u32 = ctypes.c_uint32
_c_double = ctypes.c_double
_c_int = ctypes.c_int
_c_str = ctypes.c_char_p
_P = ctypes.c_void_p


class Error(Exception):
    """A failure reported by libstreamtp: .status is its kind ("EINVAL",
    "ELIMIT", ...: stp_status_name), str(e) the library's message; .limit,
    for a limit the caller sets (stp_limit), {"kind": "states",
    "transitions", "memory", "nodes" or "work", "needed", "allowed",
    "estimate"}, else None."""

    def __init__(self, status, message, limit=None):
        super().__init__(message)
        self.status = status
        self.limit = limit

    def __reduce__(self):  # pickled with its status: raised in a worker process, it arrives whole
        return (Error, (self.status, str(self), self.limit))

    @property
    def input_error(self):
        """True when the input is at fault (the CLI's exit status 2)."""
        return self.status not in ("ENOMEM", "ENUMERIC", "EINTERNAL", "EINTERRUPTED")


# ---- the option structures (include/streamtp_base.h, streamtp_report.h) -----------
class _Limit(ctypes.Structure):
    _fields_ = [("kind", _c_int), ("needed", _c_u64), ("allowed", _c_u64), ("estimate", _c_u64)]


class _Error(ctypes.Structure):
    _fields_ = [("status", _c_int), ("message", ctypes.c_char * 1024), ("limit", _Limit)]


class _Cancel(ctypes.Structure):
    _fields_ = [("fn", _P), ("data", _P)]


class _ProgressInfo(ctypes.Structure):
    _fields_ = [("what", _c_str), ("done", _c_u64), ("estimate", _c_u64), ("seconds", _c_double)]


class _Progress(ctypes.Structure):
    _fields_ = [("fn", _P), ("data", _P)]


class _Control(ctypes.Structure):
    _fields_ = [("cancel", _Cancel), ("progress", _Progress), ("max_memory", _c_u64)]


class _Options(ctypes.Structure):
    _fields_ = [("max_transitions", _c_u64), ("max_states", _c_u64), ("exp_method", _c_int),
                ("solver_tolerance", _c_double), ("control", _Control),
                ("law", _P), ("distributed", _c_int)]


class _RunLimits(ctypes.Structure):
    _fields_ = [("max_transitions", _c_u64), ("max_states", _c_u64), ("max_memory", _c_u64),
                ("has_seed", _c_int), ("seed", _c_u64)]


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


lib, library_path = _load()


def fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


PE = ctypes.POINTER(_Error)
_status_name = fn("stp_status_name", _c_str, _c_int)
_struct_size = fn("stp_struct_size", _c_size, _c_str)
_limit_name = fn("stp_limit_name", _c_str, _c_int)
version = fn("stp_version", _c_str)().decode()


def check_layout(name, struct):
    """Refuse a library whose `name` has another size than our mirror."""
    want = _struct_size(name.encode())
    if want != ctypes.sizeof(struct):
        raise ImportError(f"streamtp: {library_path}: {name} has {want} bytes there, "
                          f"{ctypes.sizeof(struct)} here: the library and the module differ")


for _name, _struct in (("stp_error", _Error), ("stp_cancel", _Cancel),
                       ("stp_progress", _Progress), ("stp_progress_info", _ProgressInfo),
                       ("stp_control", _Control), ("stp_options", _Options),
                       ("stp_run_limits", _RunLimits)):
    check_layout(_name, _struct)


def status_name(status):
    return _status_name(status).decode()


def limit_dict(lim):
    """An stp_limit as a dict, None when it is of no kind (STP_LIMIT_NONE)."""
    if lim.kind == 0:
        return None
    return {"kind": _limit_name(lim.kind).decode(), "needed": lim.needed,
            "allowed": lim.allowed, "estimate": lim.estimate}


def fail(status, err, prefix=None, suffix=""):
    """Raise the library's error (err: an _Error it filled), after prefix
    and with Python's own advice (suffix) when given."""
    message = err.message.decode("utf-8", "replace") + suffix
    raise Error(status_name(status), f"{prefix}: {message}" if prefix else message,
                limit_dict(err.limit))


def call(f, *args):
    """f(*args, byref(err)): raise its error when it fails."""
    err = _Error()
    st = f(*args, ctypes.byref(err))
    if st != 0:
        fail(st, err)


# ---- records: the library's JSON, parsed ----------------------------------------
_record_json = fn("stp_record_json", _c_int, _P, ctypes.POINTER(_RunLimits),
                  ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_c_size), PE)
_record_free = fn("stp_record_free", None, _P)
_free = fn("stp_free", None, _P)


def record(produce, *args, limits=None):
    """The dict of the record that produce(*args, &record, &err) makes, with
    "version" and (limits: a _RunLimits) "limits", as the CLI writes it."""
    rec = _P()
    err = _Error()
    st = produce(*args, ctypes.byref(rec), ctypes.byref(err))
    if st != 0:
        fail(st, err)
    try:
        return record_dict(rec, limits)
    finally:
        _record_free(rec)


def record_dict(rec, limits=None):
    """json.loads of a record the library made (rec: its pointer)."""
    text, n, err = ctypes.c_void_p(), _c_size(), _Error()
    st = _record_json(rec, ctypes.byref(limits) if limits is not None else None,
                      ctypes.byref(text), ctypes.byref(n), ctypes.byref(err))
    if st != 0:
        fail(st, err)
    try:
        return json.loads(ctypes.string_at(text, n.value).decode("utf-8"))
    finally:
        _free(text)


_run_limits_of = fn("stp_run_limits_of", _RunLimits, ctypes.POINTER(_Options))


def limits_of(opts, seed=None):
    """The "limits" of a run under options opts (an _Options)."""
    lim = _run_limits_of(ctypes.byref(opts))
    if seed is not None:
        lim.has_seed, lim.seed = 1, seed
    return lim


# ---- arguments, checked as the command line checks them ------------------------------
_C_RANGES = {"u64": (0, 2 ** 64 - 1), "u32": (0, 2 ** 32 - 1),
             "size": (0, 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1)}


def integer(name, value, lo=0, hi=None, ctype="u64"):
    """An integer argument in [lo, hi] (hi None: the range of its C type);
    TypeError for a value that is not an integer, streamtp.Error (EINVAL)
    for one out of range, with the message of the command line's check."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    top = _C_RANGES[ctype][1] if hi is None else hi
    if not lo <= value <= top:
        raise Error("EINVAL", f"{name}: {value} is out of range [{lo}, {top}]")
    return int(value)


def number(name, value, lo=-math.inf, hi=math.inf, open_low=False):
    """A real argument in [lo, hi] (]lo, hi] when open_low), finite."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    x = float(value)
    if not math.isfinite(x) or x < lo or x > hi or (open_low and x == lo):
        raise Error("EINVAL", f"{name}: {value!r} is out of range "
                              f"{'(' if open_low else '['}{lo:g}, {hi:g}]")
    return x


TIME_MIN, TIME_MAX = 1e-150, 1e150  # STP_TIME_MIN, STP_TIME_MAX: the range of every time


def time_value(name, value, allow_zero=True):
    """A time, or a quantity times are made of, as the command line's
    cli_parse_time checks it: 0 (when allow_zero) or within
    [TIME_MIN, TIME_MAX]."""
    x = number(name, value, 0 if allow_zero else TIME_MIN, TIME_MAX)
    if x != 0 and x < TIME_MIN:
        raise Error("EINVAL", f"{name}: {value!r} is outside [{TIME_MIN:g}, {TIME_MAX:g}] "
                              "(or 0): sums of such times would underflow; rescale the units")
    return x


def text(name, value, allow_none=False):
    """A string argument as the bytes the library reads: TypeError for
    anything but str; a NUL byte would cut it there (and name another file
    or spec), so it is refused."""
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    if "\0" in value:
        raise Error("EINVAL", f"{name}: a NUL byte in {value!r}")
    return value.encode()


def path(name, value):
    """A path (str, bytes or os.PathLike) as the bytes the library opens."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path, not {type(value).__name__}")
    b = os.fsencode(value)
    if b"\0" in b:
        raise Error("EINVAL", f"{name}: a NUL byte in the path {value!r}")
    return b


def choice(name, value, names):
    """One of names (a dict name -> C value)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    if value not in names:
        raise Error("EINVAL", f"{name}: {value!r} is not one of {', '.join(names)}")
    return names[value]


# ---- the run contract: Ctrl-C, progress, the memory budget ----------------------------
_cancel_flag = ctypes.cast(lib.stp_cancel_flag, ctypes.c_void_p).value
_PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ProgressInfo), _P)
MEMORY_MIN = 1 << 20  # --max-memory's least value: 1M


class Run:
    """The run contract of one call (include/streamtp_base.h, stp_control):
    Ctrl-C reaches the C computation through a flag it polls; progress= is
    called with {"what", "done", "estimate", "seconds"} now and then (an
    exception it raises stops the computation and is raised again); the
    memory budget in bytes (None: the library's default)."""

    def __init__(self, max_memory=None, progress=None):
        self.flag = ctypes.c_int(0)
        self.max_memory = None if max_memory is None else \
            integer("max_memory", max_memory, MEMORY_MIN)
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable, not {type(progress).__name__}")
        self.progress, self.raised = progress, None
        self._callback = _PROGRESS_FN(self._report) if progress else None

    def _report(self, info, _data):
        if self.raised is not None:
            return
        i = info.contents
        try:
            self.progress({"what": (i.what or b"").decode("utf-8", "replace"), "done": i.done,
                           "estimate": i.estimate or None, "seconds": i.seconds})
        except BaseException as e:  # noqa: B036 - raised again once the call stopped
            self.raised = e
            self.flag.value = 1

    def fill(self, control):
        control.cancel.fn = _cancel_flag
        control.cancel.data = ctypes.addressof(self.flag)
        if self._callback is not None:
            control.progress.fn = ctypes.cast(self._callback, _P).value
        if self.max_memory is not None:
            control.max_memory = self.max_memory
        return control


def interruptible(body, *args, max_memory=None, progress=None, **kw):
    """body(run, *args, **kw), run in a worker thread when called from the
    main thread, so that Ctrl-C (KeyboardInterrupt, raised in the main
    thread only) sets the flag the C code polls at once instead of waiting
    for the call to return; the computation stops at its next poll and the
    KeyboardInterrupt goes on."""
    run = Run(max_memory, progress)
    if threading.current_thread() is not threading.main_thread():
        return _finish(run, body, args, kw)
    box = {}

    def work():
        try:
            box["value"] = _finish(run, body, args, kw)
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


def _finish(run, body, args, kw):
    try:
        value = body(run, *args, **kw)
    except Error:
        if run.raised is not None:  # the progress callback's exception stopped it
            raise run.raised from None
        raise
    if run.raised is not None:
        raise run.raised
    return value


_options_init = fn("stp_options_init", None, ctypes.POINTER(_Options))
EXP_METHODS = {"auto": 0, "closed-form": 1, "ctmc": 2, "none": 3}


def options(run, max_transitions=None, max_states=None, exp_method="auto"):
    """An stp_options with the limits given (None: defaults) and the run's
    control, checked as `eval` checks --max-transitions and --max-states."""
    o = _Options()
    _options_init(ctypes.byref(o))
    if max_transitions is not None:
        o.max_transitions = integer("max_transitions", max_transitions, 1)
    if max_states is not None:
        o.max_states = integer("max_states", max_states, 1)
    o.exp_method = choice("exp_method", exp_method, EXP_METHODS)
    run.fill(o.control)
    return o


# ---- laws ------------------------------------------------------------------------------
_law_parse = fn("stp_law_parse", _c_int, _c_str, _c_str, ctypes.POINTER(_P), PE)
_law_free = fn("stp_law_free", None, _P)


class Law:
    """A parsed law spec (None: no law), freed by free()."""

    def __init__(self, spec, what):
        self.ptr = _P()
        if spec is None:
            return
        err = _Error()
        st = _law_parse(text(what, spec), None, ctypes.byref(self.ptr), ctypes.byref(err))
        if st != 0:
            fail(st, err, what)

    def free(self):
        if self.ptr:
            _law_free(self.ptr)
            self.ptr = _P()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
