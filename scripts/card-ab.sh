#!/usr/bin/env bash
# Interleaved A/B rows of the card binary: `scripts/card-ab.sh ROUNDS ARM WORKLOAD...`
# runs each workload's row once per round, in turn, ROUNDS times, and prints per workload
# the median and range of its time, ceiling (% of the FMA peak) and % of ceiling.
# Build the card binary first: cargo build --release -p eagle-cli --features card --bin card
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=$1 arm=$2
shift 2
out=$(mktemp)
for r in $(seq "$rounds"); do
  for w in "$@"; do
    target/release/card --workload "$w" --arm "$arm" --json |
      python3 -c 'import json,sys; r=json.load(sys.stdin)["rows"][0]; print(r["workload"], r["time_ms"], r["ceiling_pct_of_peak"], r["pct_of_ceiling"], r["shape"])' >>"$out"
  done
done
python3 - "$out" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    w, t, c, p, *shape = line.split()
    rows.setdefault(w, []).append((float(t), float(c), float(p), " ".join(shape)))
print("| workload | time (ms): median (range) | ceiling % of peak | row % of ceiling | shapes |")
print("|---|---|---|---|---|")
for w, v in rows.items():
    f = lambda i: f"{statistics.median(x[i] for x in v):.2f} ({min(x[i] for x in v):.2f}-{max(x[i] for x in v):.2f})"
    print(f"| {w} | {f(0)} | {f(1)} | {f(2)} | {', '.join(sorted(set(x[3] for x in v)))} |")
PY
rm -f "$out"
