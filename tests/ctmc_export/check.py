#!/usr/bin/python3
"""check.py: `streamtp ctmc --format prism|storm` read back by the rules of
the formats' documentation, independently of streamtp (docs/format.md,
"ctmc exports", quotes them):

- PRISM, manual appendix "Explicit Model Files": .tra "n m" then m lines
  "i j x" (zero-indexed states, x a positive rate for a CTMC); .sta a
  "(v1,...,vn)" line then "i:(x1,...,xn)" in index order; .lab a first line
  of `k="name"` pairs, then "i: k1 k2 ..." lines; .srew "n m" then "i r".
- Storm DRN, as its parser (storm-parsers/parser/DirectEncodingParser.cpp)
  reads it: a header of @type, @value_type, @parameters (+ one line),
  @reward_models (+ one line of names), @nr_states, @nr_choices, then @model;
  per state "state ID !EXIT [REWARDS] LABELS" with IDs in order from 0, an
  "action NAME" line, and "TARGET : VALUE" lines (one space each side of the
  colon; rates for a CTMC).

Each model read back must have the generator of `--format mtx` (same rates,
self-moves dropped, parallel moves summed), its labels and rewards must be
well formed, and the long-run average of the reward "throughput", computed
here with numpy, must equal the rate `streamtp ctmc --json` reports.
Usage: check.py STREAMTP
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

BIN = sys.argv[1]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CASES = [  # (label, arguments)
    ("example-a, 2x3 pattern", [f"{ROOT}/examples/example-a.json", "-c", "4"]),
    ("example-a, Strict", [f"{ROOT}/examples/example-a.json", "--model", "strict"]),
    ("homogeneous 2x3, Strict", [f"{ROOT}/examples/homogeneous-2x3.json", "--model", "strict"]),
]
NUM = re.compile(r"^[0-9.eE+-]+$")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def read_mtx(path):
    lines = [l for l in open(path) if not l.startswith("%")]
    n, _, _ = map(int, lines[0].split())
    q = np.zeros((n, n))
    for l in lines[1:]:
        i, j, x = l.split()
        q[int(i) - 1, int(j) - 1] += float(x)
    return q


def generator(n, entries):
    q = np.zeros((n, n))
    for i, j, x in entries:
        expect(0 <= i < n and 0 <= j < n, f"state index out of range: {i} {j}")
        expect(x > 0, f"rate {x} is not positive")
        if i != j:
            q[i, j] += x
    q -= np.diag(q.sum(axis=1))
    return q


def read_prism(base):
    tra = open(base + ".tra").read().splitlines()
    n, m = map(int, tra[0].split())
    expect(len(tra) == m + 1, f".tra announces {m} transitions, holds {len(tra) - 1}")
    entries = []
    for l in tra[1:]:
        i, j, x = l.split()
        entries.append((int(i), int(j), float(x)))
    sta = open(base + ".sta").read().splitlines()
    expect(re.fullmatch(r"\([A-Za-z_]\w*(,[A-Za-z_]\w*)*\)", sta[0]), f".sta header {sta[0]!r}")
    nvars = sta[0].count(",") + 1
    expect(len(sta) == n + 1, ".sta does not list every state")
    for k, l in enumerate(sta[1:]):
        mm = re.fullmatch(r"(\d+):\((-?\d+(?:,-?\d+)*)\)", l)
        expect(mm and int(mm.group(1)) == k and mm.group(2).count(",") + 1 == nvars,
               f".sta line {l!r}")
    lab = open(base + ".lab").read().splitlines()
    names = dict(re.findall(r'(\d+)="([^"]+)"', lab[0]))
    expect(names.get("0") == "init", f".lab header {lab[0]!r}")
    labels = {}
    for l in lab[1:]:
        s, ks = l.split(":")
        for k in ks.split():
            expect(k in names, f".lab: label {k} undeclared")
            labels.setdefault(names[k], set()).add(int(s))
    srew = open(base + ".srew").read().splitlines()
    ns, nz = map(int, srew[0].split())
    expect(ns == n and len(srew) == nz + 1, ".srew counts")
    reward = np.zeros(n)
    for l in srew[1:]:
        s, r = l.split()
        reward[int(s)] = float(r)
    return generator(n, entries), labels, reward


def read_drn(path):
    lines = open(path).read().splitlines()
    header, k = {}, 0
    while True:
        l = lines[k]
        k += 1
        if not l or l.startswith("//"):
            continue
        if l.startswith("@type: "):
            header["type"] = l[7:]
        elif l.startswith("@value_type: "):
            header["value_type"] = l[13:]
        elif l in ("@parameters", "@reward_models", "@nr_states", "@nr_choices"):
            header[l[1:]] = lines[k]
            k += 1
        elif l == "@model":
            break
        else:
            fail(f"DRN header line {l!r}")
    expect(header.get("type") == "CTMC", "DRN @type")
    expect(header.get("parameters") == "", "DRN parameters")
    n = int(header["nr_states"])
    rewards = header["reward_models"].split()
    expect(rewards == ["throughput"], "DRN reward models")
    entries, reward, labels, exits = [], np.zeros(n), {}, {}
    state = -1
    for l in lines[k:]:
        if not l or l.startswith("//"):
            continue
        l = l.lstrip()
        if l.startswith("state "):
            mm = re.fullmatch(r"state (\d+) !(\S+)(?: \[([^\]]*)\])?(.*)", l)
            expect(mm and int(mm.group(1)) == state + 1, f"DRN state line {l!r}")
            state += 1
            exits[state] = float(mm.group(2))
            if mm.group(3) is not None:
                reward[state] = float(mm.group(3).split(",")[0])
            for lab in mm.group(4).split():
                labels.setdefault(lab.strip('"'), set()).add(state)
        elif l.startswith("action "):
            expect(state >= 0, "DRN action before any state")
        else:
            colon = l.find(":")
            expect(colon > 1 and l[colon - 1] == " " and l[colon + 1] == " ",
                   f"DRN transition {l!r}: the parser needs 'TARGET : VALUE'")
            target, value = l[:colon - 1], l[colon + 2:]
            expect(target.isdigit() and NUM.match(value), f"DRN transition {l!r}")
            entries.append((state, int(target), float(value)))
    expect(state + 1 == n, f"DRN has {state + 1} states, announces {n}")
    q = generator(n, entries)
    for s, e in exits.items():
        expect(abs(e + q[s, s]) <= 1e-12 * max(1, e), f"DRN exit rate of state {s}")
    return q, labels, reward


def long_run(q, reward):
    # pi Q = 0 with sum(pi) = 1: one balance equation (they are dependent)
    # replaced by the normalisation, then a dense LU solve.
    n = len(q)
    a = q.T.copy()
    a[-1, :] = 1
    b = np.zeros(n)
    b[-1] = 1
    pi = np.linalg.solve(a, b)
    return float(pi @ reward)


def main():
    for label, args in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            run = lambda *extra: subprocess.run([BIN, "ctmc", *args, *extra], check=True,
                                                capture_output=True, text=True).stdout
            info = json.loads(run("--json"))
            run("--format", "mtx", "-o", f"{tmp}/q.mtx", "--no-solve")
            run("--format", "prism", "-o", f"{tmp}/p", "--no-solve")
            run("--format", "storm", "-o", f"{tmp}/s.drn", "--no-solve")
            qm = read_mtx(f"{tmp}/q.mtx")
            for fmt, (q, labels, reward) in (("prism", read_prism(f"{tmp}/p")),
                                             ("storm", read_drn(f"{tmp}/s.drn"))):
                expect(q.shape == qm.shape and np.allclose(q, qm, rtol=1e-15, atol=0),
                       f"{label}, {fmt}: the generator differs from --format mtx")
                expect(labels.get("init") == {0}, f"{label}, {fmt}: init label")
                lra = long_run(q, reward)
                rel = abs(lra - info["rate"]) / info["rate"]
                expect(rel < 1e-9, f"{label}, {fmt}: long-run reward {lra!r}, ctmc says "
                                   f"{info['rate']!r}")
                print(f"ok   {label}, {fmt}: {len(q)} states, long-run reward {lra:.12g} "
                      f"= rate {info['rate']:.12g}")


main()
