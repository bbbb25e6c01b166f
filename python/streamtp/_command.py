"""_command.py: any streamtp command and option from Python, through the command itself.

Every command has its function, one call of libstreamtp; any option the
bindings do not have is reached here by running the
`streamtp` executable that belongs to the loaded library, with the command's
JSON output read back: the same records, keys and numbers as on the command
line (docs/format.md), and its error as a streamtp.Error.

    streamtp.command("redistribute", P=15, Q=6, r=2, s=3, strategy="all", format="csv",
                     json_lines=False)

Keyword options become --name value (underscores as dashes); True is a flag,
False and None leave the option out; a list or tuple gives the option once
per item.
"""
import json
import os
import shutil
import subprocess

# The commands whose records come as JSON lines, and the option that asks.
_JSON = {"eval": "--json", "simulate": "--json", "optimize": "--json", "teg": "--json",
         "ctmc": "--json", "graph": "--json", "reduce": "--json", "redistribute": "--json",
         "bcast": "--json", "batch": "--format=jsonl"}


def executable():
    """The streamtp executable used: $STREAMTP_COMMAND, else the one installed
    with the library, else the one built beside it, else the PATH's."""
    from . import library_path
    env = os.environ.get("STREAMTP_COMMAND")
    if env:
        return env
    dirs = []
    try:
        from . import _config
        dirs.append(getattr(_config, "BINDIR", None))
    except ImportError:
        pass
    dirs.append(os.path.dirname(os.path.abspath(library_path)))
    for d in dirs:
        if d and os.access(os.path.join(d, "streamtp"), os.X_OK):
            return os.path.join(d, "streamtp")
    found = shutil.which("streamtp")
    if found:
        return found
    raise FileNotFoundError("streamtp: no streamtp executable beside the library nor on PATH "
                            "(set STREAMTP_COMMAND)")


def _argv(name, args, options):
    argv = [executable(), name, *map(str, args)]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")  # P=15: --P 15 (redistribute)
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if v is True:
                argv.append(flag)
            elif v is not False and v is not None:
                argv += [flag, str(v)]
    return argv


def command(name, *args, json_lines=True, **options):
    """Run `streamtp NAME ARGS --OPTIONS`; return its records (a list of dicts)
    when the command writes JSON lines (json_lines=False: its text), else
    its standard output.  A failure raises streamtp.Error with the command's
    message and the status of its exit code (EINVAL for bad input or usage,
    EINTERRUPTED on Ctrl-C, EFAIL otherwise)."""
    from . import Error
    argv = _argv(name, args, options)
    wants_json = json_lines and name in _JSON and "output" not in options
    if wants_json:
        argv.append(_JSON[name])
    p = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.startswith("streamtp: error: ")]
        message = lines[0][len("streamtp: error: "):] if lines else p.stderr.strip()
        status = {2: "EINVAL", 130: "EINTERRUPTED"}.get(p.returncode, "EFAIL")
        raise Error(status, message)
    if wants_json:
        return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return p.stdout
