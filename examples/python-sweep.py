# %% [markdown]
# # Sweeping a parameter of Example A from Python
#
# A notebook-style script (cells marked `# %%`: open it in Jupyter, VS Code
# or Spyder, or run it whole with `python3 examples/python-sweep.py [OUT.png]`).
# It uses the `streamtp` module (python/streamtp, ctypes over libstreamtp):
# the mapping is a plain dict, each result the dict of `streamtp eval --json`.
#
# Question: in Example A, the transfer T2 -> T3 limits the throughput
# (component `*de` of the README).  How much does a faster default network
# help, and where does another resource take over?

# %%
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))  # not needed once installed
import streamtp

with open(os.path.join(here, "example-a.json")) as f:
    base = json.load(f)

# %% [markdown]
# Evaluate the mapping for default bandwidths from 0.25 to 8: deterministic
# and exponential throughputs (the N.B.U.E. bounds), and a simulation with
# gamma times (cv 0.5), which must fall between them.

# %%
bandwidths = [0.25 * 1.5 ** k for k in range(11)]
rows = []
for b in bandwidths:
    m = dict(base, bandwidth=b)
    r = streamtp.evaluate(m)
    s = streamtp.simulate(m, law="gamma:cv=0.5", datasets=100000, bounds=False)
    limit = next(c for c in r["components"] if c["limits"]["deterministic"])
    sim = s["simulation"]
    rows.append((b, r["bounds"]["upper"], r["bounds"]["lower"], sim["throughput"],
                 sim["ci95"], f'{limit["stage"]} {limit["kind"]}'))
    print(f"bandwidth {b:7.3f}: det {r['bounds']['upper']:.6f}  exp {r['bounds']['lower']:.6f}"
          f"  gamma {sim['throughput']:.6f}  limited by {rows[-1][-1]}")

# %% [markdown]
# Plot: the throughput grows with the bandwidth until the computation of T1
# on P0 (710 / 4 = 177.5 per data set) becomes the bottleneck; from there
# the bounds meet (one processor: no variance to lose) and the simulated law
# stays within them, up to its confidence interval.

# %%
fig, ax = plt.subplots(figsize=(7, 4.2))
ax.plot(bandwidths, [r[1] for r in rows], "o-", color="tab:blue", label="deterministic (upper bound)")
ax.plot(bandwidths, [r[2] for r in rows], "s-", color="tab:orange", label="exponential (lower bound)")
ax.errorbar(bandwidths, [r[3] for r in rows],
            yerr=[[r[3] - r[4][0] for r in rows], [r[4][1] - r[3] for r in rows]],
            fmt="^--", color="tab:green", label="gamma cv 0.5 (simulated, 95% CI)")
ax.set_xscale("log")
ax.set_xlabel("default bandwidth of the links")
ax.set_ylabel("throughput (data sets per time unit)")
ax.set_title("Example A (Overlap): throughput against the network speed")
ax.legend()
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "python-sweep.png"
fig.savefig(out, dpi=120)
print("wrote", out)
