#!/usr/bin/env python3
"""python_dict.py: what a mapping passed to the Python module as a dict
costs against the same mapping passed as a file path (issue 31: "a dict
costs no more than a file, within 1.2x on 20 x 100").  The dict is written
as JSON text by json's C encoder and read by stp_mapping_load_string; the
path is read by stp_mapping_load_file.  The two calls alternate, round
after round, so that the load of a shared machine hits both alike; each
cell is the median over the rounds.  Both must give the same record.

Usage: bench/api/python_dict.py [BUILD_DIR] [--rounds N]   (default build, 15)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    os.environ.setdefault("STREAMTP_LIBRARY", os.path.join(a.build, "libstreamtp.so.0"))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import streamtp
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for stages, procs in ((4, 7), (20, 100)):
            out = os.path.join(tmp, f"m{stages}x{procs}")
            subprocess.run([os.path.join(a.build, "streamtp"), "generate", "--stages",
                            str(stages), "--processors", str(procs), "--all-links", "--seed",
                            "3", "-o", out], check=True, capture_output=True)
            path = os.path.join(out, "map-00001.json")
            with open(path) as f:
                cases.append((f"{stages} x {procs}", path, json.load(f)))
        print(f"# load {os.getloadavg()[0]:.1f}, {a.rounds} rounds, median ms per call")
        print("| mapping | exp_method | file (ms) | dict (ms) | dict / file |")
        print("|---|---|---|---|---|")
        for name, path, d in cases:
            for exp in ("none", "auto"):
                tf, td = [], []
                for _ in range(a.rounds):
                    for src, times in ((path, tf), (d, td)):
                        t = time.perf_counter()
                        r = streamtp.evaluate(src, exp_method=exp)
                        times.append((time.perf_counter() - t) * 1e3)
                    rf = streamtp.evaluate(path, exp_method=exp)
                    assert r["deterministic"] == rf["deterministic"], name
                f, g = statistics.median(tf), statistics.median(td)
                print(f"| {name} | {exp} | {f:.2f} | {g:.2f} | {g / f:.2f} |")


if __name__ == "__main__":
    main()
