#!/usr/bin/env bash
# The stiff Robertson ensemble (rtol = atol = 1e-8, t to 1e5) in Python baselines
# (scripts/robertson_baselines.py: numba Rosenbrock23 per sample, 1 thread and prange with
# THREADS threads; scipy Radau on a subset, extrapolated), with the CPU and versions used.
# There is no Rust Robertson example yet to interleave with, as gbm-baselines.sh does.
#   .venv/bin/pip install numpy numba scipy && scripts/robertson-baselines.sh [ROUNDS] [N] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
N="${2:-65536}"
THREADS="${3:-2}"
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
lscpu | grep -m1 'Model name'
"$PY" -c 'import sys, numpy, numba, scipy; print(f"Python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}, scipy {scipy.__version__}")'
"$PY" scripts/robertson_baselines.py --n "$N" --rounds "$ROUNDS" --threads "$THREADS"
