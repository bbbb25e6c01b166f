"""_inside.py: looking inside a mapping from Python (teg, ctmc): the
library's own records, as `streamtp teg --json` and `streamtp ctmc --json`
print them ("version" and "limits" included), from the same calls as the
command's."""
import ctypes
import os

from ._lib import (PE, Error, _Error, _P, _c_int, _c_str, _c_u64, _struct_size, call, choice,
                   fail, fn, integer, interruptible, limits_of, number, options, record,
                   status_name)
from ._pipeline import Mapping

# ---- teg ------------------------------------------------------------------------------
# The summary is a result: held as the library's bytes (its size from the
# library), never mirrored; stp_teg_json reads it.
_TEG_SUMMARY_SIZE = _struct_size(b"stp_teg_summary")
_teg_summary = fn("stp_mapping_teg_summary", _c_int, _P, _c_int, _c_u64, _P, PE)
_teg_json = fn("stp_teg_json", _c_int, _P, _P, ctypes.POINTER(_P), PE)


def teg(mapping, model=None, *, max_transitions=None, max_memory=None):
    """The size of the full timed event graph of a mapping (a dict in the
    mapping-file format, or a file path) under `model` ("overlap" or
    "strict"; default: the mapping's "model"): the dict `streamtp teg
    --json` prints, with rows (paths), columns, transitions, places and
    tokens.  max_transitions: the largest graph built (None: 20000000;
    beyond it streamtp.Error ELIMIT); max_memory: the budget in bytes,
    reported in "limits"."""
    return interruptible(_teg, mapping, model, max_transitions, max_memory=max_memory)


def _teg(run, mapping, model, max_transitions):
    opts = options(run, max_transitions)
    with Mapping(mapping) as mp:
        summary, err = ctypes.create_string_buffer(_TEG_SUMMARY_SIZE), _Error()
        st = _teg_summary(mp.ptr, mp.model(model), opts.max_transitions, summary,
                          ctypes.byref(err))
        if st != 0:
            fail(st, err)
        return record(_teg_json, mp.ptr, summary, limits=limits_of(opts))


# ---- ctmc -----------------------------------------------------------------------------
# stp_chain_about and stp_chain_solution are results: the library's bytes too.
_ABOUT_SIZE = _struct_size(b"stp_chain_about")
_SOLUTION_SIZE = _struct_size(b"stp_chain_solution")
_PP = ctypes.POINTER(_P)
_mapping_chain = fn("stp_mapping_chain", _c_int, _P, _c_int, ctypes.c_long, _P, _PP, _P, PE)
_chain_free = fn("stp_chain_free", None, _P)
_chain_description = fn("stp_chain_description", _c_str, _P)
_chain_solve = fn("stp_chain_solve", _c_int, _P, _P, _c_int, _P, PE)
_chain_json = fn("stp_chain_json", _c_int, _P, _P, _P, _P, _PP, PE)
_atomic_open = fn("stp_atomic_open", _c_int, _c_str, _PP, _PP, PE)
_atomic_commit = fn("stp_atomic_commit", _c_int, _P, PE)
_atomic_abort = fn("stp_atomic_abort", None, _P)
_write_mtx = fn("stp_chain_write_mtx", _c_int, _P, _P, _c_str, PE)
_write_states = fn("stp_chain_write_states", _c_int, _P, _P, PE)
_write_drn = fn("stp_chain_write_drn", _c_int, _P, _P, _c_str, PE)
_write_prism = fn("stp_chain_write_prism", _c_int, _P, _P, _P, _P, _P, PE)
_SOLVERS = {"auto": 0, "direct": 1, "iterative": 2}
_FORMATS = ("mtx", "csv", "storm", "prism")
_PRISM = (".tra", ".sta", ".lab", ".srew")


def ctmc(mapping, model=None, *, component=None, solver="auto", solve=True, tolerance=None,
         output=None, format=None, max_transitions=None, max_states=None, max_memory=None,
         progress=None):
    """One Markov chain of a mapping (a dict or a path) with exponential
    times, built and solved: the dict `streamtp ctmc --json` prints.  Under
    Overlap, component K is the transfer component (its index in
    evaluate()["components"]); under Strict the whole chain (component
    None).  solver: "auto", "direct" or "iterative"; solve=False only
    builds it; tolerance: the accepted scaled residual (None: 1e-9).
    output and format ("mtx", "csv", "storm", "prism"; prism writes
    OUTPUT.tra, .sta, .lab and .srew) write the chain for other tools, each
    file whole, as `ctmc --format F -o OUTPUT`."""
    if (output is None) != (format is None):
        raise Error("EINVAL", "format needs output" if format is not None else
                    "output needs format (prism, storm, mtx, csv)")
    if format is not None and format not in _FORMATS:
        choice("format", format, dict.fromkeys(_FORMATS, 0))
    return interruptible(_ctmc, mapping, model, component, choice("solver", solver, _SOLVERS),
                         solve, tolerance, output, format, max_transitions, max_states,
                         max_memory=max_memory, progress=progress)


def _ctmc(run, mapping, model, component, solver, solve, tolerance, output, format,
          max_transitions, max_states):
    opts = options(run, max_transitions, max_states)
    if tolerance is not None:
        opts.solver_tolerance = number("tolerance", tolerance, 1e-16, 1)
    k = -1 if component is None else integer("component", component, 0, 2 ** 63 - 1)
    with Mapping(mapping) as mp:
        chosen = mp.model(model)
        chain, about, err = _P(), ctypes.create_string_buffer(_ABOUT_SIZE), _Error()
        st = _mapping_chain(mp.ptr, chosen, k, ctypes.byref(opts), ctypes.byref(chain), about,
                            ctypes.byref(err))
        if st != 0:
            if status_name(st) == "EINVAL" and chosen == 0 and component is None:
                fail(st, err, suffix="; choose one with component=K")
            fail(st, err)
        try:
            if output is not None:
                _export(chain, os.fsencode(output), format)
            sol = ctypes.create_string_buffer(_SOLUTION_SIZE) if solve else None
            if solve:
                call(_chain_solve, chain, ctypes.byref(opts), solver, sol)
            return record(_chain_json, mp.ptr, chain, about, sol, limits=limits_of(opts))
        finally:
            _chain_free(chain)


def _export(chain, out, format):
    """The chain to out in format, every file whole (PRISM's four renamed
    together once all are written)."""
    if format != "prism":
        paths = [out]
    else:
        base = out[:-4] if out.endswith(b".tra") else out
        paths = [base + e.encode() for e in _PRISM]
    files, streams = [], []
    try:
        for p in paths:
            a, f = _P(), _P()
            call(_atomic_open, p, ctypes.byref(a), ctypes.byref(f))
            files.append(a)
            streams.append(f)
        desc = _chain_description(chain)
        if format == "mtx":
            call(_write_mtx, chain, streams[0], desc)
        elif format == "csv":
            call(_write_states, chain, streams[0])
        elif format == "storm":
            call(_write_drn, chain, streams[0], desc)
        else:
            call(_write_prism, chain, *streams)
        while files:
            call(_atomic_commit, files.pop(0))
    finally:
        for a in files:
            _atomic_abort(a)
