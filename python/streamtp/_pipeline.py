"""_pipeline.py: mappings and their analyses from Python (evaluate,
simulate): the library's own records, as `streamtp eval --json` and
`streamtp simulate --json` print them."""
import ctypes
import json
import os

from . import _located
from ._lib import (PE, _Control, _Error, _Options, _P, _c_int, _c_size, _c_str, _c_u32, _c_u64,
                   Error, Law, check_layout, choice, fail, fn, integer, interruptible, limits_of,
                   number, options, path, record, status_name, text, time_value)

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
        raise TypeError(f"{what} must be a dict (a {what} file's content) or a path, "
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


def load(source, what, load_file, load_string):
    """A library object read by load_file(path) from a path, or by
    load_string(text, len, "<what>") from a dict (its file's content), an
    error of the dict cited at its place in it."""
    ptr, err = _P(), _Error()
    data = mapping_text(source, what)
    if data is None:
        st = load_file(path(what, source), ctypes.byref(ptr), ctypes.byref(err))
        if st != 0:
            fail(st, err)
        return ptr
    st = load_string(data, len(data), f"<{what}>".encode(), ctypes.byref(ptr), ctypes.byref(err))
    if st != 0:
        relocated(load_string, source, what, st, err)
    return ptr


class Mapping:
    """A loaded mapping (a dict or a path), freed on exit."""

    def __init__(self, mapping):
        self.ptr = load(mapping, "mapping", _load_file, _load_string)

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
             max_memory=None, law=None, progress=None, sensitivity=False, rank_by=None,
             top=None, utilization=False, latency=False):
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
    (KeyboardInterrupt) within a second.  sensitivity=True adds
    "sensitivity" (ranked by rank_by "det", "exp" (default) or "law"; top:
    the first top) and "sensitivity_solve", utilization=True "utilization",
    latency=True "latency", as `eval --sensitivity --utilization --latency`."""
    if model is not None and model != "both":
        choice("model", model, MODELS)
    if sensitivity or utilization or latency or rank_by is not None or top is not None:
        from ._explain import explain_all
        return interruptible(explain_all, mapping, model, exp_method, max_transitions,
                             max_states, law, sensitivity, rank_by, top, utilization, latency,
                             max_memory=max_memory, progress=progress)
    return interruptible(_evaluate_all, mapping, model, exp_method, max_transitions, max_states,
                         law, max_memory=max_memory, progress=progress)


def sweep(mapping, vary, model=None, *, law=None, exp_method="auto", max_transitions=None,
          max_states=None, max_memory=None, progress=None):
    """The records of `streamtp sweep --json`: one dict per point of the
    range (vary: a spec "speed:P1=1..10:11:log", "law=erlang:k=1..8", or a
    list of two, the first fastest), with "vary", the eval objects and
    "critical"."""
    if model is not None and model != "both":
        choice("model", model, MODELS)
    from ._explain import sweep_all
    return interruptible(sweep_all, mapping, vary, model, exp_method, max_transitions,
                         max_states, law, max_memory=max_memory, progress=progress)


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
                ("eval", _Options), ("control", _Control), ("utilization", _c_int),
                ("latency", _c_int), ("source_rate", ctypes.c_double)]


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
             progress=None, utilization=False, latency=False, source_rate=None):
    """Monte Carlo simulation of a mapping (dict or path) with random times:
    the dict `streamtp simulate --json` prints.  law: the default law spec
    (None: the mapping's "laws" default, else exp); warmup None: a tenth of
    a run; replications: K independent runs instead of `batches` batch
    means; bounds: also compute the exact bounds of `eval`; "version" and
    "limits" (with the seed) end the dict, as on the command's line.
    progress(info): as for evaluate.  Ctrl-C stops the runs
    (KeyboardInterrupt) within a second.  utilization=True adds
    "utilization" (each resource's busy fraction, exact and simulated with
    its 95% interval), latency=True "latency" (alone in the pipeline, and
    simulated with the source releasing source_rate data sets per time
    unit, default 0.95 x the simulated throughput; a rate at or above the
    throughput raises EINVAL), as `simulate --utilization --latency
    --source-rate R`."""
    o = _sim_options(datasets, seed, warmup, batches, replications, associated, resource_law,
                     bounds, utilization, latency, source_rate)
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




# ---- batch ----------------------------------------------------------------------------
_SINK_FN = ctypes.CFUNCTYPE(_c_int, _P, _P, ctypes.POINTER(_Error))
_SUMMARY_FN = ctypes.CFUNCTYPE(None, _P, _P)


class _BatchConfig(ctypes.Structure):
    _fields_ = [("jobs", _c_size), ("models", _c_int), ("options", _Options), ("sink", _P),
                ("progress", _P), ("progress_interval", ctypes.c_double), ("ctx", _P),
                ("sensitivity", _c_int), ("utilization", _c_int), ("latency", _c_int),
                ("rank_by", _c_int), ("top", _c_size),
                ("simulate", ctypes.POINTER(_SimOptions))]


class _BatchInput(ctypes.Structure):  # an input struct (the paths handed over), not a result
    _fields_ = [("path", _c_str), ("status", _c_int), ("message", _c_str)]


check_layout("stp_batch_config", _BatchConfig)
check_layout("stp_batch_input", _BatchInput)
_batch_config_init = fn("stp_batch_config_init", None, ctypes.POINTER(_BatchConfig))
_batch_collect = fn("stp_batch_collect", _c_int, ctypes.POINTER(_c_str), _c_size,
                    ctypes.POINTER(ctypes.POINTER(_BatchInput)), ctypes.POINTER(_c_size), PE)
_batch_inputs_free = fn("stp_batch_inputs_free", None, ctypes.POINTER(_BatchInput), _c_size)
_batch_run = fn("stp_batch_run", _c_int, ctypes.POINTER(_BatchInput), _c_size,
                ctypes.POINTER(_BatchConfig), _P, PE)
_batch_row_json = fn("stp_batch_row_json", _c_int, _P, ctypes.POINTER(_P), PE)
_batch_summary_json = fn("stp_batch_summary_json", _c_int, _P, ctypes.POINTER(_P), PE)
_BATCH_MODELS = {None: 0, "overlap": 1, "strict": 2, "both": 3}
_MAX_JOBS = 1024  # batch --jobs


_RANK = {"det": 0, "exp": 1, "law": 2}


def batch(*inputs, model=None, jobs=None, law=None, exp_method="auto", max_transitions=None,
          max_states=None, max_memory=None, progress=None, sensitivity=False, rank_by=None,
          top=None, utilization=False, latency=False, simulate=False, datasets=1000000,
          seed=1, warmup=None, batches=20, replications=None, associated=False,
          resource_law=None, bounds=True, source_rate=None):
    """Evaluate many mapping files at once, on worker threads: the rows of
    `streamtp batch --format jsonl`, one per file and model, in input order
    (a directory stands for every *.json file below it, sorted by path).
    A file that cannot be read or evaluated gives a row with its "status"
    and "error"; the batch goes on.  model: None (each file's), "overlap",
    "strict" or "both"; jobs: worker threads (None: the online cores); law,
    exp_method and the limits as for evaluate.  progress(summary) is called
    about four times a second with {"inputs", "inputs_done", "rows",
    "failed_rows", ...}.  Ctrl-C stops it (KeyboardInterrupt) at once.
    sensitivity, rank_by, top, utilization, latency: each row also holds
    them, as evaluate's (`batch --sensitivity --utilization --latency`).
    simulate=True: each row is the dict of simulate(file, ...) instead,
    with datasets, seed (the same for every file), warmup, batches,
    replications, associated, resource_law, bounds, utilization, latency
    and source_rate as simulate's and law the simulation's default law
    (`batch --simulate`).  Campaigns over many machines (--shard, --resume,
    --merge) are the command line's: docs/guide/batch.md."""
    if not inputs:
        raise Error("EINVAL", "no mapping file or directory given")
    args = [path("input", p) for p in inputs]
    cfg = _BatchConfig()
    _batch_config_init(ctypes.byref(cfg))
    cfg.models = choice("model", model, _BATCH_MODELS) if model is not None else 0
    if jobs is not None:
        cfg.jobs = integer("jobs", jobs, 1, _MAX_JOBS)
    if rank_by is not None:
        cfg.rank_by = choice("rank_by", rank_by, _RANK)
    if top is not None:
        cfg.top = integer("top", top, 1, ctype="size")
    if (rank_by is not None or top is not None) and not sensitivity:
        raise Error("EINVAL", "rank_by and top need sensitivity=True")
    cfg.sensitivity, cfg.utilization = int(bool(sensitivity)), int(bool(utilization))
    cfg.latency = int(bool(latency))
    sim = None
    if simulate:
        if sensitivity:
            raise Error("EINVAL", "sensitivity is evaluate's: not with simulate=True")
        sim = _sim_options(datasets, seed, warmup, batches, replications, associated,
                                 resource_law, bounds, utilization, latency, source_rate)
        cfg.utilization = cfg.latency = 0  # the simulation's own
    elif resource_law is not None or source_rate is not None:
        raise Error("EINVAL", "resource_law and source_rate need simulate=True")
    return interruptible(_batch_run_all, args, cfg, law, exp_method, max_transitions,
                         max_states, progress, sim, resource_law, max_memory=max_memory)


def _sim_options(datasets, seed, warmup, batches, replications, associated, resource_law,
                 bounds, utilization, latency, source_rate):
    """The options of a simulation (simulate's, batch's), checked as the
    command line checks them."""
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
    o.utilization, o.latency = int(bool(utilization)), int(bool(latency))
    if source_rate is not None:
        if not latency:
            raise Error("EINVAL", "source_rate needs latency=True")
        o.source_rate = time_value("source_rate", source_rate, allow_zero=False)
    return o


def _batch_run_all(run, args, cfg, law, exp_method, max_transitions, max_states, progress, sim,
                   resource_law):
    cfg.options = options(run, max_transitions, max_states, exp_method)
    cfg.options.control.progress.fn = None  # the rows in parallel: the summary says it
    limits = limits_of(cfg.options, sim.seed if sim is not None else None)
    rows, raised = [], []

    def sink(row, _ctx, err):
        try:
            rows.append(record(_batch_row_json, row, limits=limits))
            return 0
        except BaseException as e:  # noqa: B036 - raised again after the batch stopped
            raised.append(e)
            err.contents.status = 8  # STP_EINTERNAL: stops the batch
            return 8

    def summary(sofar, _ctx):
        if progress is not None and not raised:
            try:
                progress(record(_batch_summary_json, sofar))
            except BaseException as e:  # noqa: B036
                raised.append(e)
                run.flag.value = 1

    sink_fn, summary_fn = _SINK_FN(sink), _SUMMARY_FN(summary)
    cfg.sink = ctypes.cast(sink_fn, _P).value
    cfg.progress = ctypes.cast(summary_fn, _P).value
    argv = (_c_str * len(args))(*args)
    ins, n, err = ctypes.POINTER(_BatchInput)(), _c_size(), _Error()
    with Law(law, "law") as lw, Law(resource_law, "resource_law") as rl:
        cfg.options.law = lw.ptr
        if sim is not None:  # as simulate: --law is the runs' law, the bounds as eval's
            sim.law, sim.resource_law = lw.ptr, rl.ptr
            sim.eval = cfg.options
            sim.eval.law = None
            cfg.simulate = ctypes.pointer(sim)
        st = _batch_collect(argv, len(args), ctypes.byref(ins), ctypes.byref(n),
                            ctypes.byref(err))
        if st != 0:
            fail(st, err)
        try:
            if n.value == 0:
                raise Error("EINVAL", "no mapping file (*.json) found in the given directories")
            st = _batch_run(ins, n.value, ctypes.byref(cfg), None, ctypes.byref(err))
        finally:
            _batch_inputs_free(ins, n.value)
    if raised:
        raise raised[0]
    if st != 0:
        fail(st, err)
    return rows



# ---- generate -------------------------------------------------------------------------
class _GenerateParams(ctypes.Structure):
    _fields_ = [("stages", _c_size), ("processors", _c_size), ("teams", ctypes.POINTER(_c_size)),
                ("team_sizes", _c_int), ("comp_min", ctypes.c_double),
                ("comp_max", ctypes.c_double), ("comm_min", ctypes.c_double),
                ("comm_max", ctypes.c_double), ("draw", _c_int), ("comp_per", _c_int),
                ("comm_per", _c_int), ("model", _c_int), ("seed", _c_u64),
                ("all_links", ctypes.c_bool)]


class _GenerateFilesOptions(ctypes.Structure):
    _fields_ = [("directory", _c_str), ("prefix", _c_str), ("count", _c_u64), ("force", _c_int),
                ("control", _Control)]


check_layout("stp_generate_params", _GenerateParams)
check_layout("stp_generate_files_options", _GenerateFilesOptions)
_generate_params_init = fn("stp_generate_params_init", None, ctypes.POINTER(_GenerateParams))
_generate_files_options_init = fn("stp_generate_files_options_init", None,
                                  ctypes.POINTER(_GenerateFilesOptions))
_generate_files = fn("stp_generate_files", _c_int, ctypes.POINTER(_GenerateParams),
                     ctypes.POINTER(_GenerateFilesOptions), ctypes.POINTER(_P), PE)
_generate_files_free = fn("stp_generate_files_result_free", None, _P)
_generate_files_json = fn("stp_generate_files_json", _c_int, _P, ctypes.POINTER(_P), PE)
_TEAM_SIZES = {"composition": 0, "fit": 1, "independent": 2, "sequential": 3}
_DRAWS = {"times": 0, "rates": 1, "integers": 2}
_COMP_PER = {"processor": 0, "stage": 1}
_COMM_PER = {"link": 0, "transfer": 1, "processor": 2}
_MAX_STAGES, _MAX_PROCESSORS, _MAX_FILES = 10000, 100000, 10000000


def _time_range(name, value):
    """(a, b), "A..B", or one time A (all equal): 0 < a <= b."""
    if isinstance(value, str):
        a, _, b = value.partition("..")
        try:
            lo, hi = float(a), float(b or a)
        except ValueError:
            raise Error("EINVAL", f"{name}: {value!r} is not a range A..B") from None
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        lo, hi = (number(name, x) for x in value)
    else:
        lo = hi = number(name, value)
    if not lo > 0:
        raise Error("EINVAL", f"{name}: times must be > 0, got {value!r}")
    if hi < lo:
        raise Error("EINVAL", f"{name}: the range {value!r} is empty (A > B)")
    return lo, hi


def generate(output, *, stages=None, processors=None, teams=None, team_sizes=None, comp=None,
             comm=None, draw="times", comp_per="processor", comm_per="link", all_links=False,
             count=1, seed=1, model="overlap", prefix="map", force=False):
    """Random mapping files following the protocol of the paper's Table 1,
    written as OUTPUT/PREFIX-0000k.json (the directory made when missing),
    as `streamtp generate -o OUTPUT` writes them: returns its record
    {"directory", "prefix", "count", "written", "unchanged", "files", ...}.
    teams: fixed team sizes (a list) instead of random ones drawn as
    team_sizes says; comp, comm: time ranges ((a, b), "A..B" or one time);
    a directory holding PREFIX-*.json of another run is refused unless
    force (a rerun with the same options is not: it leaves the files)."""
    p = _GenerateParams()
    _generate_params_init(ctypes.byref(p))
    sizes = None
    if teams is not None:
        if not isinstance(teams, (list, tuple)) or not teams:
            raise TypeError("teams must be a non-empty list of team sizes")
        sizes = (_c_size * len(teams))(*[integer("teams", t, 1, _MAX_PROCESSORS) for t in teams])
        p.teams, p.stages = ctypes.cast(sizes, ctypes.POINTER(_c_size)), len(teams)
        if team_sizes is not None:
            raise Error("EINVAL", "team_sizes draws team sizes, teams fixes them: give one")
    if stages is not None:
        n = integer("stages", stages, 1, _MAX_STAGES, ctype="size")
        if teams is not None and n != len(teams):
            raise Error("EINVAL", f"stages {n} disagrees with the {len(teams)} teams")
        p.stages = n
    if processors is not None:
        p.processors = integer("processors", processors, 1, _MAX_PROCESSORS, ctype="size")
    if team_sizes is not None:
        p.team_sizes = choice("team_sizes", team_sizes, _TEAM_SIZES)
    if comp is not None:
        p.comp_min, p.comp_max = _time_range("comp", comp)
    if comm is not None:
        p.comm_min, p.comm_max = _time_range("comm", comm)
    p.draw = choice("draw", draw, _DRAWS)
    p.comp_per = choice("comp_per", comp_per, _COMP_PER)
    p.comm_per = choice("comm_per", comm_per, _COMM_PER)
    p.all_links, p.model = bool(all_links), choice("model", model, MODELS)
    p.seed = integer("seed", seed)
    o = _GenerateFilesOptions()
    _generate_files_options_init(ctypes.byref(o))
    o.directory = path("output", output)
    o.prefix = text("prefix", prefix)
    o.count = integer("count", count, 1, _MAX_FILES)
    o.force = int(bool(force))
    return interruptible(_generate_run, p, o, sizes)


def _generate_run(run, p, o, _sizes):  # _sizes: kept alive while the library reads it
    run.fill(o.control)
    res, err = _P(), _Error()
    st = _generate_files(ctypes.byref(p), ctypes.byref(o), ctypes.byref(res), ctypes.byref(err))
    if st != 0:
        fail(st, err)
    try:
        lim = limits_of(options(run))
        lim.max_transitions = lim.max_states = 0  # generate's limit: the memory budget only
        return record(_generate_files_json, res, limits=lim)
    finally:
        _generate_files_free(res)


__all__ = ["evaluate", "simulate", "batch", "generate"]
