#!/usr/bin/env bash
# The GBM call-pricing workload (a million paths, 252 Euler-Maruyama steps) on eagle's best
# team (examples/gbm.rs) beside numpy and numba (scripts/gbm_baselines.py), interleaved:
# ROUNDS rounds (default 7) of one timed run each, then the median and range of each.
#   pip install numpy numba && scripts/gbm-baselines.sh [ROUNDS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-7}"
N="${2:-1000000}"
cargo build --release -q --example gbm
log="$(mktemp)"
for _ in $(seq "$ROUNDS"); do
  target/release/examples/gbm "$N" 1 | grep ' s$' | tee -a "$log"
  python3 scripts/gbm_baselines.py "$N" 1 | tee -a "$log"
done
lscpu | grep -m1 'Model name'
python3 - "$log" <<'PY'
import re, statistics, sys
times = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) gbm-em n=\d+ steps=\d+: ([0-9.]+) s", line)
    if m:
        times.setdefault(m[1], []).append(float(m[2]))
eagle = statistics.median(times["eagle"])
for name, t in times.items():
    med = statistics.median(t)
    print(f"{name:15s} median {med:.3f} s (range {min(t):.3f}-{max(t):.3f}, {len(t)} runs), "
          f"{med / eagle:.1f}x eagle's time")
PY
