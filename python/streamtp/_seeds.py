"""_seeds.py: the seed families from Python (reduce, redistribute, bcast,
bcast_model, bcast_partition): each is one call of libstreamtp, the same
as the command's, and returns the library's own records, as the command
prints them with --json ("version" and "limits" included).

Arguments are checked as the command line checks its options (same
ranges; streamtp.Error EINVAL out of range, TypeError for a wrong type);
long calls take progress= and stop on Ctrl-C (KeyboardInterrupt)."""
import ctypes

from ._lib import (PE, _Control, _Error, _P, _c_double, _c_int, _c_size, _c_u64, Error, Law,
                   check_layout, choice, fail, fn, integer, interruptible, number, record,
                   time_value)

_PP = ctypes.POINTER(_P)
_MAX_RUNS = 10 ** 12  # --simulate R


def _runs(simulate, seed):
    """The Monte Carlo runs (0: none) and seed, as --simulate and --seed."""
    if simulate is None:
        if seed is not None:
            raise Error("EINVAL", "seed needs simulate=R")
        return 0, 1
    return (integer("simulate", simulate, 1, _MAX_RUNS),
            1 if seed is None else integer("seed", seed))


def _records(run_fn, json_fn, count_fn, free_fn, opts):
    """The records of one run: run_fn(opts, &result), then json_fn(result, k)
    for each of its count_fn(result) items."""
    res, err = _P(), _Error()
    st = run_fn(ctypes.byref(opts), ctypes.byref(res), ctypes.byref(err))
    try:
        if st != 0:
            fail(st, err)
        return [record(json_fn, res, k) for k in range(count_fn(res))]
    finally:
        if res:
            free_fn(res)


# ---- redistribute ---------------------------------------------------------------------
class _RedistCost(ctypes.Structure):
    _fields_ = [("alpha", _c_double), ("beta", _c_double), ("M", _c_u64)]


class _RedistOptions(ctypes.Structure):
    _fields_ = [("P", _c_u64), ("Q", _c_u64), ("r", _c_u64), ("s", _c_u64),
                ("cost", _RedistCost), ("strategy", _c_int), ("max_steps", _c_u64),
                ("max_nodes", _c_u64), ("max_work", _c_double), ("law", _P),
                ("simulate", _c_u64), ("seed", _c_u64), ("control", _Control)]


check_layout("stp_redist_run_options", _RedistOptions)
_redist_init = fn("stp_redist_run_options_init", None, ctypes.POINTER(_RedistOptions))
_redist_run = fn("stp_redist_run", _c_int, ctypes.POINTER(_RedistOptions), _PP, PE)
_redist_free = fn("stp_redist_result_free", None, _P)
_redist_count = fn("stp_redist_result_count", _c_size, _P)
_redist_json = fn("stp_redist_json", _c_int, _P, _c_size, _PP, PE)

_STRATEGIES = {"class": 0, "stepwise": 1, "greedy": 2, "caterpillar": 3, "optimal": 4,
               "all": -2}
_MAX_PROCS, _MAX_BLOCK = 1048576, 2 ** 40  # STP_REDIST_MAX_PROCS, STP_REDIST_MAX_BLOCK


def redistribute(P, Q, r, s, *, M=None, alpha=0.0, beta=1.0, strategy=None, max_steps=None,
                 max_nodes=None, max_work=None, law=None, simulate=None, seed=None,
                 max_memory=None, progress=None):
    """Block-cyclic redistribution CYCLIC(r) on P -> CYCLIC(s) on Q: the
    records `streamtp redistribute --json` prints, one per strategy (a
    list).  M: the array size, a multiple of L (None: L); alpha, beta: the
    cost model; strategy: class, stepwise, greedy, caterpillar, optimal or
    all (None: class where it applies, else stepwise); max_steps and
    max_nodes: optimal's limits; max_work: the matching strategies' work
    limit; law: a phase-type law spec whose exact expected cost goes to
    "exact_law" (and the law of the simulation); simulate R runs of the
    barrier schedule with `seed`; max_memory: the budget in bytes."""
    o = _RedistOptions()
    _redist_init(ctypes.byref(o))
    o.P, o.Q = integer("P", P, 1, _MAX_PROCS), integer("Q", Q, 1, _MAX_PROCS)
    o.r, o.s = integer("r", r, 1, _MAX_BLOCK), integer("s", s, 1, _MAX_BLOCK)
    if M is not None:
        o.cost.M = integer("M", M, 1)
    o.cost.alpha, o.cost.beta = time_value("alpha", alpha), time_value("beta", beta)
    if strategy is not None:
        o.strategy = choice("strategy", strategy, _STRATEGIES)
    for name, value in (("max_steps", max_steps), ("max_nodes", max_nodes)):
        if value is not None and strategy != "optimal":
            raise Error("EINVAL", f"{name} applies to strategy='optimal' only")
    if max_steps is not None:
        o.max_steps = integer("max_steps", max_steps, 1)
    if max_nodes is not None:
        o.max_nodes = integer("max_nodes", max_nodes, 1)
    if max_work is not None:
        o.max_work = number("max_work", max_work, 1, 1e300)
    o.simulate, o.seed = _runs(simulate, seed)
    return interruptible(_redistribute, o, law, max_memory=max_memory, progress=progress)


def _redistribute(run, o, law):
    run.fill(o.control)
    with Law(law, "law") as lw:
        o.law = lw.ptr
        return _records(_redist_run, _redist_json, _redist_count, _redist_free, o)


__all__ = ["redistribute"]
