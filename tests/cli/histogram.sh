#!/usr/bin/env bash
# histogram.sh: `simulate --histogram` of a heavy-tailed law (hyperexp:cv=2)
# keeps the bulk of the law readable: 49 equal bins up to the 99th
# percentile and one last bin for the tail, which holds 1% of the
# intervals; every interval counted once; the bins contiguous; the first bin
# far from holding most of the sample (equal bins up to the largest put 82%
# of these 100,000 intervals into the first).  Usage: histogram.sh STREAMTP
set -uo pipefail
bin=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" simulate "$root/examples/example-a.json" --law hyperexp:cv=2 --datasets 100000 \
  --no-bounds --histogram "$tmp/h.csv" > /dev/null || { echo "FAIL simulate --histogram"; exit 1; }
/usr/bin/python3 - "$tmp/h.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
lo = [float(r["bin_low"]) for r in rows]
hi = [float(r["bin_high"]) for r in rows]
n = [int(r["count"]) for r in rows]
fails = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
check(len(rows) == 50, f"50 bins ({len(rows)})")
check(sum(n) == 100000, f"every interval counted once ({sum(n)})")
check(all(abs(hi[k] - lo[k + 1]) <= 1e-9 * hi[k] for k in range(49)), "the bins are contiguous")
w = [hi[k] - lo[k] for k in range(49)]
check(max(w) - min(w) <= 1e-6 * max(w), "the first 49 bins have one width")
check(hi[49] - lo[49] > 2 * w[0], "the last bin holds the tail (wider than the others)")
check(abs(n[49] - 1000) <= 1, f"the tail bin holds 1% of the intervals ({n[49]})")
check(n[0] / sum(n) < 0.5, f"the first bin holds less than half of them ({n[0] / sum(n):.2f})")
dens = [float(r["density"]) for r in rows]
frac = [float(r["fraction"]) for r in rows]
check(all(abs(dens[k] * (hi[k] - lo[k]) - frac[k]) <= 1e-8 * max(frac[k], 1e-12) for k in range(50)),
      "density x width = fraction in every bin")
check([r["tail"] for r in rows] == ["0"] * 49 + ["1"], "the tail column marks the last bin only")
check(dens[49] < dens[48], f"the tail's density is below its neighbour's ({dens[49]:.3g} < {dens[48]:.3g})")
head = open(sys.argv[1]).readline()
check(" its own run took " in head and head.rstrip().endswith(" s"), "the header says the run's time")
sys.exit(1 if fails else 0)
PY
checks=$?
# the picture: scripts/plot-histogram.py draws it (matplotlib, deps.sh core)
MPLBACKEND=Agg /usr/bin/python3 "$root/scripts/plot-histogram.py" "$tmp/h.csv" "$tmp/h.png" &&
  [ "$(head -c 4 "$tmp/h.png" | od -An -c | tr -d ' ')" = "211PNG" ] ||
  { echo "FAIL scripts/plot-histogram.py draws the CSV as a PNG"; exit 1; }
echo "ok   scripts/plot-histogram.py draws the CSV as a PNG"
exit $checks
