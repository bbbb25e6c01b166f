"""streamtp: throughput of replicated streaming pipelines, from Python.

A thin ctypes layer over the shared library libstreamtp (no compiler needed,
nothing to build at install time).  Mappings are the dicts of a mapping file
(docs/format.md), or the path of one; every function returns the record the
library writes for the matching command with --json (json.loads of the very
same text: same keys, same numbers, "version" and "limits" included).

    >>> import streamtp
    >>> r = streamtp.evaluate("examples/example-a.json")
    >>> r["deterministic"]["period"]
    189.0

Errors of the library (a bad mapping, a size limit, an unknown law) and
arguments out of range raise streamtp.Error with the library's status
(.status: "EINVAL", "ELIMIT", ...) and message, e.g.
`<mapping> at mapping[1][1]: processor "P9" in mapping[1][1] is not declared`;
an argument of the wrong type raises TypeError.  Long calls take progress=,
a function called now and then with what is being done, and stop within a
second on Ctrl-C (KeyboardInterrupt).

The library is found, in this order: $STREAMTP_LIBRARY (a path), the
directory recorded at install time (_config.py), the build/ directory of
the source tree this package sits in, then the system's search path.
"""
from ._lib import Error, library_path, version as __version__
from ._optimize import optimize
from ._pipeline import batch, evaluate, generate, simulate, sweep

__all__ = ["Error", "evaluate", "simulate", "sweep", "batch", "generate", "optimize",
           "library_path", "__version__"]

# The generic event graph and the seed families (streamtp.graph).
from .graph import graph  # noqa: E402

__all__ += ["graph"]

# Looking inside a mapping: its event graph and its Markov chains (streamtp._inside).
from ._inside import ctmc, teg  # noqa: E402

__all__ += ["teg", "ctmc"]

# Any command and option, through the streamtp executable (streamtp.command).
from ._command import command  # noqa: E402

__all__ += ["command"]

# The seed families' commands (streamtp._seeds).
from ._seeds import bcast, bcast_model, bcast_partition, redistribute, reduce  # noqa: E402

__all__ += ["reduce", "redistribute", "bcast", "bcast_model", "bcast_partition"]
