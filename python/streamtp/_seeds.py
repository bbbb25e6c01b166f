"""_seeds.py: the seed families from Python (reduce, redistribute, bcast,
bcast_model, bcast_partition): each is one call of libstreamtp, the same
as the command's, and returns the library's own records, as the command
prints them with --json ("version" and "limits" included).

Arguments are checked as the command line checks its options (same
ranges; streamtp.Error EINVAL out of range, TypeError for a wrong type);
long calls take progress= and stop on Ctrl-C (KeyboardInterrupt)."""
import ctypes
import functools
import os

from ._lib import (PE, _Control, _Error, _P, _c_double, _c_int, _c_size, _c_u64, Error, Law,
                   check_layout, choice, fail, fn, integer, interruptible, number, path, record,
                   text, time_value)
from ._pipeline import load

_PP = ctypes.POINTER(_P)
_MAX_RUNS = 10 ** 12    # --simulate R
_MAX_STATES = 10 ** 12  # --max-states


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


# ---- reduce ---------------------------------------------------------------------------
class _ReduceOptions(ctypes.Structure):
    _fields_ = [("n_first", _c_u64), ("n_last", _c_u64), ("d", _c_double), ("c", _c_double),
                ("tree", _c_int), ("algorithm", _c_int), ("K", _c_u64), ("exponential", _c_int),
                ("max_states", _c_u64), ("law", _P), ("simulate", _c_u64), ("seed", _c_u64),
                ("brief", _c_int), ("each", _P), ("each_data", _P), ("control", _Control)]


check_layout("stp_reduce_run_options", _ReduceOptions)
_reduce_init = fn("stp_reduce_run_options_init", None, ctypes.POINTER(_ReduceOptions))
_reduce_run = fn("stp_reduce_run", _c_int, ctypes.POINTER(_ReduceOptions), _PP, PE)
_reduce_free = fn("stp_reduce_result_free", None, _P)
_reduce_count = fn("stp_reduce_result_count", _c_size, _P)
_reduce_json = fn("stp_reduce_json", _c_int, _P, _c_size, _PP, PE)

_TREES = {"optimal": 0, "binomial": 1, "fibonacci": 2}
_EXP_METHODS = {"dag-ctmc": 1, "none": 0}
_MAX_N = 10 ** 8  # STP_REDUCE_MAX_N


def reduce(n, d, c, *, tree="optimal", max_reducers=None, max_transfers=None,
           exp_method="dag-ctmc", max_states=None, simulate=None, law=None, seed=None,
           brief=False, max_memory=None, progress=None):
    """Reduction trees of Canon and Antoniu: the record `streamtp reduce --n N
    --d D --c C --json` prints; n a pair (A, B) gives the list of the records
    of A..B.  max_reducers K: Algorithm 3; max_transfers K: Algorithm 2
    (optimal tree, no exponential value, no simulation); exp_method
    "dag-ctmc" or "none"; max_states: the order ideals' cap; law: the law of
    the times (its exact makespan when phase-type, and the simulation's);
    simulate R runs with `seed`; brief leaves out children, transfer_starts
    and the critical path; max_memory: the budget in bytes."""
    o = _ReduceOptions()
    _reduce_init(ctypes.byref(o))
    lo, hi = (n, n) if not isinstance(n, (tuple, list)) else tuple(n)
    o.n_first, o.n_last = integer("n", lo, 1, _MAX_N), integer("n", hi, 1, _MAX_N)
    if o.n_first > o.n_last:
        raise Error("EINVAL", f"n: the range {lo}..{hi} is empty (A > B)")
    o.d, o.c = time_value("d", d), time_value("c", c)
    if o.d + o.c <= 0:
        raise Error("EINVAL", "d, c: d = c = 0, one of the two times must be positive")
    o.tree = choice("tree", tree, _TREES)
    if max_reducers is not None and max_transfers is not None:
        raise Error("EINVAL", "max_transfers and max_reducers exclude each other")
    if max_reducers is not None:
        o.algorithm, o.K = 3, integer("max_reducers", max_reducers, 1, _MAX_N)
    if max_transfers is not None:
        o.algorithm, o.K = 2, integer("max_transfers", max_transfers, 1, _MAX_N)
        if tree != "optimal":
            raise Error("EINVAL", "max_transfers: Algorithm 2 builds the optimal tree only, "
                                  f"not {tree}")
    o.exponential = choice("exp_method", exp_method, _EXP_METHODS)
    if max_states is not None:
        o.max_states = integer("max_states", max_states, 1, _MAX_STATES)
    o.simulate, o.seed = _runs(simulate, seed)
    if o.simulate and o.algorithm == 2:
        raise Error("EINVAL", "simulate: Algorithm 2 (max_transfers) limits concurrent "
                              "transfers, which no fixed-order DAG expresses")
    o.brief = int(bool(brief))
    records = interruptible(_reduce, o, law, max_memory=max_memory, progress=progress)
    return records if isinstance(n, (tuple, list)) else records[0]


def _reduce(run, o, law):
    run.fill(o.control)
    with Law(law, "law") as lw:
        o.law = lw.ptr
        return _records(_reduce_run, _reduce_json, _reduce_count, _reduce_free, o)


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


# ---- bcast ----------------------------------------------------------------------------
class _BcastOptions(ctypes.Structure):
    _fields_ = [("size", _c_double), ("has_size", _c_int), ("root", _c_size), ("intra", _c_int),
                ("inter", _c_int), ("max_states", _c_u64), ("law", _P), ("simulate", _c_u64),
                ("seed", _c_u64), ("each", _P), ("each_data", _P), ("control", _Control)]


class _ModelParams(ctypes.Structure):
    _fields_ = [("P", _c_u64), ("L", _c_double), ("g", _c_double), ("k", _c_u64),
                ("gs", _c_double), ("g1", _c_double)]


class _ModelOptions(ctypes.Structure):
    _fields_ = [("params", _ModelParams), ("control", _Control)]


class _PartitionOptions(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char_p), ("text", ctypes.c_char_p), ("len", _c_size),
                ("rho", _c_double), ("control", _Control)]


check_layout("stp_bcast_run_options", _BcastOptions)
check_layout("stp_bcast_model_options", _ModelOptions)
check_layout("stp_bcast_partition_options", _PartitionOptions)
_platform_load_file = fn("stp_bcast_platform_load_file", _c_int, ctypes.c_char_p, _PP, PE)
_platform_load_string = fn("stp_bcast_platform_load_string", _c_int, ctypes.c_char_p, _c_size,
                           ctypes.c_char_p, _PP, PE)
_platform_free = fn("stp_bcast_platform_free", None, _P)
_platform_file = fn("stp_bcast_platform_file", ctypes.c_char_p, _P)
_cluster_find = fn("stp_bcast_cluster_find", _c_int, _P, ctypes.c_char_p,
                   ctypes.POINTER(_c_size), PE)
_bcast_init = fn("stp_bcast_run_options_init", None, ctypes.POINTER(_BcastOptions))
_bcast_run = fn("stp_bcast_run", _c_int, _P, ctypes.POINTER(_BcastOptions), _PP, PE)
_bcast_free = fn("stp_bcast_result_free", None, _P)
_bcast_count = fn("stp_bcast_result_count", _c_size, _P)
_bcast_json = fn("stp_bcast_json", _c_int, _P, _c_size, _PP, PE)
_model_run = fn("stp_bcast_model_run", _c_int, ctypes.POINTER(_ModelOptions), _PP, PE)
_model_free = fn("stp_bcast_model_result_free", None, _P)
_model_json = fn("stp_bcast_model_json", _c_int, _P, _PP, PE)
_partition_run = fn("stp_bcast_partition_run", _c_int, ctypes.POINTER(_PartitionOptions), _PP,
                    PE)
_partition_free = fn("stp_bcast_partition_result_free", None, _P)
_partition_json = fn("stp_bcast_partition_json", _c_int, _P, _PP, PE)

_HEURISTICS = {"flat": 0, "fef": 1, "ecef": 2, "ecef-la": 3, "ecef-lat": 4, "ecef-lat-max": 5,
               "bottomup": 6, "all": -1}
_INTRA = {"binomial": 0, "flat": 1, "chain": 2}
_MODEL_MAX = 2 ** 40    # --model's --P and --k


class _Platform:
    """A platform (a file's path, or a dict of its content), freed on exit."""

    def __init__(self, source):
        self.ptr = load(source, "platform", _platform_load_file, _platform_load_string)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _platform_free(self.ptr)

    def root(self, name):
        """The index of the cluster called name, as --root finds it."""
        j, err = _c_size(), _Error()
        if _cluster_find(self.ptr, text("root", name), ctypes.byref(j), ctypes.byref(err)) != 0:
            file = _platform_file(self.ptr).decode("utf-8", "replace")
            raise Error("EINVAL", f'root: no cluster "{name}" in {file}')
        return j.value


def bcast(platform, inter="all", *, intra="binomial", size=None, root=None, max_states=None,
          simulate=None, law=None, seed=None, max_memory=None, progress=None):
    """Broadcast on a grid of clusters (a platform file's path, or a dict of
    its content): the records `streamtp bcast PLATFORM --json` prints, a
    list of one per heuristic for inter="all", else the one record of
    heuristic `inter`.  intra: binomial, flat or chain; size: the message
    size in bytes (required when a gap depends on it); root: a cluster's
    name; max_states: the exponential chain's cap; law: the law of the
    times (its exact makespan when phase-type, and the simulation's);
    simulate R runs with `seed`; max_memory: the budget in bytes."""
    o = _BcastOptions()
    _bcast_init(ctypes.byref(o))
    o.inter = choice("inter", inter, _HEURISTICS)
    o.intra = choice("intra", intra, _INTRA)
    if size is not None:
        o.size, o.has_size = number("size", size, 1, 1e150), 1
    if max_states is not None:
        o.max_states = integer("max_states", max_states, 1, _MAX_STATES)
    o.simulate, o.seed = _runs(simulate, seed)
    records = interruptible(_bcast, platform, o, root, law, max_memory=max_memory,
                            progress=progress)
    return records if inter == "all" else records[0]


def _bcast(run, platform, o, root, law):
    run.fill(o.control)
    with Law(law, "law") as lw, _Platform(platform) as p:
        o.law = lw.ptr
        if root is not None:
            o.root = p.root(root)
        return _records(functools.partial(_bcast_run, p.ptr), _bcast_json, _bcast_count,
                        _bcast_free, o)


def bcast_model(P, L, g, *, k=1, gs=None, g1=0.0, max_memory=None, progress=None):
    """Table 1 of Steffenel: the record of `streamtp bcast --model --P P --L L
    --g G --json`, the printed formula and the (max,+) value ("dag", None
    where the algorithm has none) of each intra-cluster algorithm; k
    segments of gap gs (None: g), g1 the gap of one byte."""
    o = _ModelOptions()
    q = o.params
    q.P, q.k = integer("P", P, 2, _MODEL_MAX), integer("k", k, 1, _MODEL_MAX)
    q.L, q.g = time_value("L", L), time_value("g", g)
    q.gs = q.g if gs is None else time_value("gs", gs)
    q.g1 = time_value("g1", g1)
    return interruptible(_one, _model_run, _model_json, _model_free, o, max_memory=max_memory,
                         progress=progress)


def bcast_partition(latency, rho, *, max_memory=None, progress=None):
    """Lowekamp's clusters: the record of `streamtp bcast --partition CSV
    --rho R --json`.  latency: a CSV file's path, or a square matrix (a
    list of rows, "file" then "<latency>")."""
    o = _PartitionOptions()
    o.rho = number("rho", rho, 0, 1e150)
    if isinstance(latency, (str, bytes, os.PathLike)):
        o.file = path("latency", latency)
    else:
        rows = [[number("latency", x) for x in row] for row in latency]
        data = "".join(",".join(repr(x) for x in row) + "\n" for row in rows).encode()
        o.file, o.text, o.len = b"<latency>", data, len(data)
    return interruptible(_one, _partition_run, _partition_json, _partition_free, o,
                         max_memory=max_memory, progress=progress)


def _one(run, run_fn, json_fn, free_fn, o):
    """The one record of a run that makes one result."""
    run.fill(o.control)
    res, err = _P(), _Error()
    st = run_fn(ctypes.byref(o), ctypes.byref(res), ctypes.byref(err))
    if st != 0:
        fail(st, err)
    try:
        return record(json_fn, res)
    finally:
        free_fn(res)


__all__ = ["reduce", "redistribute", "bcast", "bcast_model", "bcast_partition"]
