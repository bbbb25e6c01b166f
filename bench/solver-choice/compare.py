#!/usr/bin/env python3
"""compare.py: the values of two builds of streamtp side by side (issue 35:
the solver choice must not move any value by more than 1e-12).

Usage: compare.py OLD_STREAMTP NEW_STREAMTP FILE...
Evaluates every FILE under both models and the laws exp, erlang:k=3 and
hyperexp:cv=2 with both binaries (eval --json), prints one line per case
(the solvers of the largest chain, old -> new, and the relative difference
of the exponential and the exact-law throughputs) and exits 1 if any
difference exceeds 1e-12."""
import json
import subprocess
import sys

LAWS = ["exp", "erlang:k=3", "hyperexp:cv=2"]
TOL = 1e-12


def evaluate(binary, path, model, law):
    args = [binary, "eval", path, "--model", model, "--json"]
    if law != "exp":
        args += ["--law", law]
    out = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout.splitlines()[-1])


def value(rec, key):
    part = rec.get(key) or {}
    return part.get("throughput"), part.get("solver"), part.get("states")


def rel(a, b):
    if a is None or b is None:
        return 0.0 if a == b else float("inf")
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def main():
    old, new, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    worst = 0.0
    for path in files:
        for model in ("overlap", "strict"):
            for law in LAWS:
                a, b = evaluate(old, path, model, law), evaluate(new, path, model, law)
                if a is None or b is None:
                    print(f"{path} {model} {law}: not evaluated (old {a is not None}, new {b is not None})")
                    continue
                key = "exponential" if law == "exp" else "exact_law"
                va, sa, na = value(a, key)
                vb, sb, _ = value(b, key)
                d = max(rel(va, vb), rel(value(a, "exponential")[0], value(b, "exponential")[0]))
                worst = max(worst, d)
                print(f"{path} {model} {law}: {na} states, {sa} -> {sb}, rel. diff {d:.1e}")
    print(f"largest relative difference {worst:.2e} (tolerance {TOL:g})")
    return 0 if worst <= TOL else 1


if __name__ == "__main__":
    sys.exit(main())
