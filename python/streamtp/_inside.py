"""_inside.py: looking inside a mapping from Python (teg): the library's
own records, as `streamtp teg --json` prints them ("version" and "limits"
included), from the same calls as the command's."""
import ctypes

from ._lib import (PE, _Error, _P, _c_int, _c_u64, _struct_size, fail, fn, interruptible,
                   limits_of, options, record)
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
