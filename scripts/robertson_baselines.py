"""The stiff Robertson ensemble (n samples, y0 = [1, 0, 0], t from 0 to 1e5, rtol = atol =
1e-8) in Python baselines: numba running a hand-written adaptive Rosenbrock23 (Shampine &
Reichelt 1997, MATLAB's ode23s), one sample at a time (one thread) and the same loop over
samples with prange; and scipy's solve_ivp(Radau) with the analytic Jacobian, per sample
on a subset (--scipy-n) with its time extrapolated to n. Sample i has the rates
k1 = 0.04 s(i % 16), k2 = 3e7 s(5i % 16), k3 = 1e4 s(11i % 16), s(j) = 2^((j - 7.5) / 7.5)
(those of scripts/stiff_reference.py). Each time excludes numba's compile (warmed up first).

    pip install numpy numba scipy && python3 scripts/robertson_baselines.py \
        [--n N] [--rounds R] [--scipy-n M] [--threads T]
"""
import argparse
import math
import statistics
import time

import numba
import numpy as np
from scipy.integrate import solve_ivp

T_END, TOL, H0 = 1e5, 1e-8, 1e-6
D = 1.0 / (2.0 + math.sqrt(2.0))  # diagonal of W = I - h d J
E32 = 6.0 + math.sqrt(2.0)
MAX_ATTEMPTS = 10_000_000  # per sample; a guard against a step size that never gets there


def rates(n):
    """Per-sample [k1, k2, k3], shape (n, 3)."""
    s = lambda j: 2.0 ** ((j - 7.5) / 7.5)  # 0.5 .. 2, geometric in j = 0..15
    i = np.arange(n)
    return np.stack([0.04 * s(i % 16), 3e7 * s((5 * i) % 16), 1e4 * s((11 * i) % 16)], axis=1)


@numba.njit(inline="always", error_model="numpy")
def rhs(k1, k2, k3, y, out):
    out[0] = -k1 * y[0] + k3 * y[1] * y[2]
    out[1] = k1 * y[0] - k2 * y[1] * y[1] - k3 * y[1] * y[2]
    out[2] = k2 * y[1] * y[1]


@numba.njit(inline="always", error_model="numpy")
def lu_solve3(a, piv, b):
    """b <- A^-1 b, with a and piv from lu3 (row swaps first, then L, then U)."""
    for c in range(3):
        p = piv[c]
        b[c], b[p] = b[p], b[c]
    for r in range(1, 3):
        for c in range(r):
            b[r] -= a[r, c] * b[c]
    for r in range(2, -1, -1):
        for c in range(r + 1, 3):
            b[r] -= a[r, c] * b[c]
        b[r] /= a[r, r]


@numba.njit(error_model="numpy")
def rosenbrock23(k1, k2, k3, rtol, atol, y):
    """Integrates one sample from t = 0 to T_END in place in y; returns (accepted, rejected)."""
    a = np.empty((3, 3))  # W, then its LU factors
    piv = np.empty(3, np.int64)
    f0, f1, f2 = np.empty(3), np.empty(3), np.empty(3)
    s1, s2, s3 = np.empty(3), np.empty(3), np.empty(3)  # the stages k1, k2, k3
    ym, y1 = np.empty(3), np.empty(3)
    t, h, acc, rej = 0.0, H0, 0, 0
    for _ in range(MAX_ATTEMPTS):
        last = h >= T_END - t
        step = T_END - t if last else h  # the last step lands exactly on T_END
        hd = step * D
        rhs(k1, k2, k3, y, f0)
        # W = I - h d J, J analytic; T = df/dt = 0 (autonomous), so the h d T terms vanish.
        a[0, 0], a[0, 1], a[0, 2] = -k1, k3 * y[2], k3 * y[1]
        a[1, 0], a[1, 1], a[1, 2] = k1, -2.0 * k2 * y[1] - k3 * y[2], -k3 * y[1]
        a[2, 0], a[2, 1], a[2, 2] = 0.0, 2.0 * k2 * y[1], 0.0
        for r in range(3):
            for c in range(3):
                a[r, c] = (1.0 if r == c else 0.0) - hd * a[r, c]
        for c in range(3):  # LU with partial pivoting, in place
            p = c
            for r in range(c + 1, 3):
                if abs(a[r, c]) > abs(a[p, c]):
                    p = r
            piv[c] = p
            for j in range(3):
                a[c, j], a[p, j] = a[p, j], a[c, j]
            for r in range(c + 1, 3):
                a[r, c] /= a[c, c]
                for j in range(c + 1, 3):
                    a[r, j] -= a[r, c] * a[c, j]
        for i in range(3):  # k1 = W \ F0
            s1[i] = f0[i]
        lu_solve3(a, piv, s1)
        for i in range(3):
            ym[i] = y[i] + 0.5 * step * s1[i]
        rhs(k1, k2, k3, ym, f1)  # F1 = f(t + h/2, y + h/2 k1)
        for i in range(3):  # k2 = W \ (F1 - k1) + k1
            s2[i] = f1[i] - s1[i]
        lu_solve3(a, piv, s2)
        finite = True
        for i in range(3):
            s2[i] += s1[i]
            y1[i] = y[i] + step * s2[i]
            finite = finite and math.isfinite(y1[i])
        rhs(k1, k2, k3, y1, f2)  # F2 = f(t + h, y1)
        for i in range(3):  # k3 = W \ (F2 - e32 (k2 - F1) - 2 (k1 - F0))
            s3[i] = f2[i] - E32 * (s2[i] - f1[i]) - 2.0 * (s1[i] - f0[i])
        lu_solve3(a, piv, s3)
        sq = 0.0  # RMS of err / (atol + rtol max(|y|, |y1|)), err = h/6 (k1 - 2 k2 + k3)
        for i in range(3):
            e = step / 6.0 * (s1[i] - 2.0 * s2[i] + s3[i])
            sq += (e / (atol + rtol * max(abs(y[i]), abs(y1[i])))) ** 2
        norm = math.sqrt(sq / 3.0)
        if math.isnan(norm):
            fac = 0.2
        elif norm == 0.0:
            fac = 5.0
        else:
            fac = min(5.0, max(0.2, 0.9 * norm ** (-1.0 / 3.0)))
        h = step * fac  # from the attempted (clipped) step, accepted or rejected
        if norm <= 1.0 and finite:
            acc += 1
            t = T_END if last else t + step
            for i in range(3):
                y[i] = y1[i]
            if last:
                return acc, rej
        else:
            rej += 1
    return -acc, rej  # gave up: a negative count marks it


@numba.njit(error_model="numpy")
def numba_serial(k, rtol, atol):
    n = k.shape[0]
    y = np.zeros((n, 3))
    steps = np.zeros((n, 2), np.int64)
    for i in range(n):
        y[i, 0] = 1.0
        steps[i, 0], steps[i, 1] = rosenbrock23(k[i, 0], k[i, 1], k[i, 2], rtol, atol, y[i])
    return y, steps


@numba.njit(parallel=True, error_model="numpy")
def numba_parallel(k, rtol, atol):
    n = k.shape[0]
    y = np.zeros((n, 3))
    steps = np.zeros((n, 2), np.int64)
    for i in numba.prange(n):
        y[i, 0] = 1.0
        steps[i, 0], steps[i, 1] = rosenbrock23(k[i, 0], k[i, 1], k[i, 2], rtol, atol, y[i])
    return y, steps


def scipy_radau(k):
    """solve_ivp(Radau) with the analytic Jacobian, one sample at a time."""
    y = np.empty((len(k), 3))
    for i, (k1, k2, k3) in enumerate(k):
        f = lambda t, y: np.array([-k1 * y[0] + k3 * y[1] * y[2],
                                   k1 * y[0] - k2 * y[1] * y[1] - k3 * y[1] * y[2],
                                   k2 * y[1] * y[1]])
        jac = lambda t, y: np.array([[-k1, k3 * y[2], k3 * y[1]],
                                     [k1, -2.0 * k2 * y[1] - k3 * y[2], -k3 * y[1]],
                                     [0.0, 2.0 * k2 * y[1], 0.0]])
        sol = solve_ivp(f, (0.0, T_END), [1.0, 0.0, 0.0], method="Radau",
                        rtol=TOL, atol=TOL, jac=jac)
        assert sol.success and sol.t[-1] == T_END, sol.message
        y[i] = sol.y[:, -1]
    return y, None


def timed(f, rounds):
    """Median, min, max seconds of `rounds` calls of f, and f's last result."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), max(times), out


def check(name, y, steps):
    """Every sample conserved its mass (sum y = 1) and, for numba, reached T_END."""
    drift = np.abs(y.sum(axis=1) - 1.0).max()
    assert drift < 1e-6, f"{name}: |sum(y) - 1| up to {drift:.2e}"
    if steps is not None:
        assert (steps[:, 0] > 0).all(), f"{name}: {(steps[:, 0] <= 0).sum()} samples gave up"
    return drift


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scipy-n", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2, help="prange threads")
    args = ap.parse_args()
    numba.set_num_threads(args.threads)
    k = rates(args.n)
    numba_serial(k[:4], TOL, TOL)  # compile outside the timed calls
    numba_parallel(k[:4], TOL, TOL)
    fmt = lambda med, lo, hi: f"{med:.4f} s (range {lo:.4f}-{hi:.4f}, {args.rounds} runs)"
    ys = {}
    for name, f in [("numba", lambda: numba_serial(k, TOL, TOL)),
                    (f"numba-parallel({args.threads})", lambda: numba_parallel(k, TOL, TOL))]:
        med, lo, hi, (y, steps) = timed(f, args.rounds)
        drift = check(name, y, steps)
        ys[name] = y
        if len(ys) == 2:  # same code per sample, so the same bits whatever the thread count
            assert np.array_equal(ys["numba"], y), "numba and numba-parallel differ"
        acc, rej = steps[:, 0], steps[:, 1]
        print(f"{name} robertson-rosenbrock23 n={args.n}: {fmt(med, lo, hi)}; "
              f"accepted {acc.sum()} (per sample {acc.min()}-{acc.max()}), rejected {rej.sum()}; "
              f"mean y {y.mean(axis=0).tolist()}; max |sum y - 1| {drift:.1e}")
    m = min(args.scipy_n, args.n)
    med, lo, hi, (y, _) = timed(lambda: scipy_radau(k[:m]), args.rounds)
    drift = check("scipy", y, None)
    diff = np.abs(y - ys["numba"][:m]).max()
    print(f"scipy-radau robertson n={m}: {fmt(med, lo, hi)}, {med / m * 1e3:.3f} ms/sample; "
          f"EXTRAPOLATED to n={args.n}: {med / m * args.n:.2f} s; subset mean y {y.mean(axis=0).tolist()}; "
          f"max |sum y - 1| {drift:.1e}; max |y - numba y| {diff:.1e}")


main()
