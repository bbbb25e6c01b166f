"""_optimize.py: choosing the mapping from Python (include/streamtp_optimize.h):
the library's record of the answer, as `streamtp optimize --json` prints it."""
import ctypes

from ._lib import (PE, Law, _Error, _Options, _P, _c_double, _c_int, _c_size, _c_str, _c_u64,
                   Error, check_layout, choice, fail, fn, integer, interruptible, limits_of,
                   number, options, path, record, text)
from ._pipeline import MODELS, mapping_text, relocated


class _OptimizeOptions(ctypes.Structure):
    _fields_ = [("model", _c_int), ("objective", _c_int), ("method", _c_int),
                ("max_team", _c_size), ("use", _c_str), ("fix", ctypes.POINTER(_c_str)),
                ("nfix", _c_size), ("time_limit", _c_double), ("max_evaluations", _c_u64),
                ("seed", _c_u64), ("max_latency", _c_double), ("eval", _Options), ("progress", _P),
                ("progress_data", _P)]


check_layout("stp_optimize_options", _OptimizeOptions)
_problem_load_string = fn("stp_problem_load_string", _c_int, _c_str, _c_size, _c_str,
                          ctypes.POINTER(_P), PE)
_problem_load_file = fn("stp_problem_load_file", _c_int, _c_str, ctypes.POINTER(_P), PE)
_problem_free = fn("stp_problem_free", None, _P)
_problem_model = fn("stp_problem_model", _c_int, _P)
_options_init = fn("stp_optimize_options_init", None, ctypes.POINTER(_OptimizeOptions))
_optimize = fn("stp_optimize", _c_int, _P, ctypes.POINTER(_OptimizeOptions), ctypes.POINTER(_P),
               PE)
_result_free = fn("stp_optimize_result_free", None, _P)
_result_json = fn("stp_optimize_result_json", _c_int, _P, ctypes.POINTER(_P), PE)

OBJECTIVES = {"det": 0, "exp": 1, "law:SPEC": 2}
METHODS = {"auto": 0, "exact": 1, "heuristic": 2, "random": 3}


def _load_problem(problem):
    ptr, err = _P(), _Error()
    data = mapping_text(problem, "problem")
    if data is None:
        st = _problem_load_file(path("problem", problem), ctypes.byref(ptr), ctypes.byref(err))
        if st != 0:
            fail(st, err)
        return ptr
    st = _problem_load_string(data, len(data), b"<problem>", ctypes.byref(ptr),
                              ctypes.byref(err))
    if st != 0:
        relocated(_problem_load_string, problem, "problem", st, err)
    return ptr


def _names(what, value):
    """A list of processor names, or one string "P1,P2" (as --use gives it)."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list of processor names, not {type(value).__name__}")
    for v in value:
        text(what, v)
    return list(value)


def _fix_specs(fix):
    """{"T2": ["P1", "P3"]} (or ["T2=P1,P3", ...]) -> the library's strings."""
    if fix is None:
        return []
    if isinstance(fix, dict):
        out = []
        for stage, procs in fix.items():
            text("fix", stage)
            if isinstance(procs, str):
                raise TypeError(f"fix[{stage!r}] must be a list of processor names, not a "
                                f"string ({procs!r} would be {list(procs)})")
            out.append(f"{stage}={','.join(_names(f'fix[{stage!r}]', procs))}")
        return out
    if not isinstance(fix, (list, tuple)):
        raise TypeError(f"fix must be a dict of teams, not {type(fix).__name__}")
    return [f for f in fix if text("fix", f)]


def _objective(objective):
    """"det", "exp" or "law:SPEC" -> (the library's number, the law's spec or None)."""
    if isinstance(objective, str) and objective.startswith("law:"):
        return 2, objective[4:]
    if objective == "law:SPEC":
        raise ValueError("objective: give the law, as in 'law:erlang:k=3'")
    return choice("objective", objective, OBJECTIVES), None


def optimize(problem, objective="det", method="auto", *, model=None, max_team=None, use=None,
             fix=None, time_limit=None, max_evaluations=None, seed=1, max_latency=None,
             exp_method="auto", max_transitions=None, max_states=None, max_memory=None,
             progress=None):
    """The mapping of best throughput for a problem: a mapping file's dict
    (its "mapping" optional: the starting point when given) or a path.
    objective: "det", "exp" (the throughput guaranteed for every
    N.B.U.E. law) or "law:SPEC" (the exact throughput of evaluate(...,
    law=SPEC), a phase-type law); max_latency: only mappings whose
    deterministic latency (evaluate(..., latency=True)) is at most it;
    method: "auto", "exact", "heuristic" or "random";
    model: "overlap" or "strict" (default: the problem's); max_team: the
    largest team; use: the processors allowed (a list, or "P1,P2"); fix:
    teams kept as given ({"T2": ["P1", "P3"]}); time_limit (seconds, 0.001 to 1e9, as --time-limit)
    and max_evaluations stop the search with the best so far; seed: the
    heuristic's.  Returns the dict `streamtp optimize --json` prints.
    progress(info): as for evaluate.  Ctrl-C stops the search
    (KeyboardInterrupt) within a second."""
    o = _OptimizeOptions()
    _options_init(ctypes.byref(o))
    o.objective, law = _objective(objective)
    o.method = choice("method", method, METHODS)
    if model is not None:
        choice("model", model, MODELS)
    if max_team is not None:
        o.max_team = integer("max_team", max_team, 1, ctype="size")
    if time_limit is not None:
        o.time_limit = number("time_limit", time_limit, 1e-3, 1e9)
    if max_evaluations is not None:
        o.max_evaluations = integer("max_evaluations", max_evaluations, 1)
    o.seed = integer("seed", seed)
    if max_latency is not None:
        o.max_latency = number("max_latency", max_latency, 1e-150, 1e300)
    use_text = None if use is None else ",".join(_names("use", use)).encode()
    specs = [f.encode() for f in _fix_specs(fix)]
    return interruptible(_optimize_run, problem, o, model, use_text, specs, law, exp_method,
                         max_transitions, max_states, max_memory=max_memory, progress=progress)


def _optimize_run(run, problem, o, model, use_text, specs, law, exp_method, max_transitions,
                  max_states):
    o.eval = options(run, max_transitions, max_states, exp_method)
    with Law(law, "objective") as lw:
        o.eval.law = lw.ptr
        return _optimize_with(problem, o, model, use_text, specs)


def _optimize_with(problem, o, model, use_text, specs):
    o.use = use_text
    fixes = (_c_str * max(len(specs), 1))(*specs)
    o.fix, o.nfix = ctypes.cast(fixes, ctypes.POINTER(_c_str)), len(specs)
    ptr = _load_problem(problem)
    try:
        o.model = _problem_model(ptr) if model is None else MODELS[model]
        res, err = _P(), _Error()
        st = _optimize(ptr, ctypes.byref(o), ctypes.byref(res), ctypes.byref(err))
        if st != 0:
            fail(st, err)
        try:
            return record(_result_json, res, limits=limits_of(o.eval, o.seed))
        finally:
            _result_free(res)
    finally:
        _problem_free(ptr)


__all__ = ["optimize"]
