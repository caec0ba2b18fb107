"""The GBM call-pricing workload of `examples/gbm.rs` (n paths, 252 Euler-Maruyama steps,
S0 = K = 100, r = 0.05, sigma = 0.2, T = 1) in numpy (vectorized over paths, its own
PCG64 generator) and numba (one path at a time, numba's own generator; and the same loop
over paths in parallel with prange), each timed after a warm-up (numba's compile).

    pip install numpy numba && python3 scripts/gbm_baselines.py [N [RUNS]]
"""
import sys
import time

import numba
import numpy as np

S0, K, R, SIGMA, T, STEPS = 100.0, 100.0, 0.05, 0.2, 1.0, 252


def numpy_paths(n, rng):
    dt = T / STEPS
    s = np.full(n, S0)
    for _ in range(STEPS):
        dw = rng.standard_normal(n) * np.sqrt(dt)
        s += R * s * dt + SIGMA * s * dw
    return s


@numba.njit(cache=False)
def numba_paths(n):
    dt = T / STEPS
    sq = np.sqrt(dt)
    out = np.empty(n)
    for p in range(n):
        s = S0
        for _ in range(STEPS):
            s += R * s * dt + SIGMA * s * np.random.standard_normal() * sq
        out[p] = s
    return out


@numba.njit(parallel=True, cache=False)
def numba_parallel(n):
    dt = T / STEPS
    sq = np.sqrt(dt)
    out = np.empty(n)
    for p in numba.prange(n):
        s = S0
        for _ in range(STEPS):
            s += R * s * dt + SIGMA * s * np.random.standard_normal() * sq
        out[p] = s
    return out


def price(s):
    pay = np.exp(-R * T) * np.maximum(s - K, 0.0)
    return pay.mean(), pay.std(ddof=1) / np.sqrt(len(pay))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = np.random.default_rng(2024)
    numba_paths(10)
    numba_parallel(10)
    for name, f in [
        ("numpy", lambda: numpy_paths(n, rng)),
        ("numba", lambda: numba_paths(n)),
        ("numba-parallel", lambda: numba_parallel(n)),
    ]:
        for _ in range(runs):
            t0 = time.perf_counter()
            s = f()
            dt = time.perf_counter() - t0
            p, se = price(s)
            print(f"{name} gbm-em n={n} steps={STEPS}: {dt:.4f} s (price {p:.4f} +- {se:.4f})")


main()
