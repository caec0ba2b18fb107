#!/usr/bin/env bash
# The stiff Robertson ensemble (65,536 rate sets, rtol = atol = 1e-8, t to 1e5) on eagle's
# best team (examples/robertson.rs: Rosenbrock23 and Rodas5P) beside Python baselines
# (scripts/robertson_baselines.py: numba Rosenbrock23 per sample, one thread and prange;
# scipy Radau per sample on a subset, extrapolated to N), interleaved: ROUNDS rounds
# (default 7) of one timed run each, then the median and range of each.
#   .venv/bin/pip install numpy numba scipy && scripts/robertson-baselines.sh [ROUNDS] [N] [SCIPY_N]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-7}"
N="${2:-65536}"
SCIPY_N="${3:-32}"
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
cargo build --release -q --example robertson
log="$(mktemp)"
for _ in $(seq "$ROUNDS"); do
  target/release/examples/robertson "$N" 1 | grep '^eagle' | tee -a "$log"
  "$PY" scripts/robertson_baselines.py --n "$N" --rounds 1 --scipy-n "$SCIPY_N" | tee -a "$log"
done
lscpu | grep -m1 'Model name'
"$PY" -c 'import sys, numpy, numba, scipy; print(f"Python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}, scipy {scipy.__version__}")'
"$PY" - "$log" <<'PY'
import re, statistics, sys
times = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) robertson-?(\S*) n=\d+: ([0-9.]+) s", line)
    if not m:
        continue
    name = f"{m[1]} {m[2]}".strip()
    x = re.search(r"EXTRAPOLATED to n=\d+: ([0-9.]+) s", line)
    times.setdefault(name, []).append(float(x[1] if x else m[3]))
base = statistics.median(times["eagle rosenbrock23"])
for name, t in times.items():
    med = statistics.median(t)
    print(f"{name:34s} median {med:9.3f} s (range {min(t):.3f}-{max(t):.3f}, {len(t)} runs), "
          f"{med / base:7.1f}x eagle rosenbrock23's time")
PY
