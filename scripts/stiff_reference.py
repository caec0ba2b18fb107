#!/usr/bin/env python3
"""Reference final states of four stiff ODE workloads (Robertson, HIRES, stiff Van der Pol,
Oregonator), 16 samples each, computed with scipy's Radau (rtol 1e-12, analytic Jacobians)
and cross-checked with scipy's BDF (LSODA where BDF gives up). Writes them as Rust
source, for include!() from the kernels-gpu tests, to kernels-gpu/tests/data/stiff_reference.rs.

Every per-sample parameter is computed here and written with repr() (shortest round-trip
digits), so the Rust tests read exactly the same f64 inputs as this script used.

Rerun (from the repository root; scipy lives in the git-ignored .venv):
    python3 -m venv .venv && .venv/bin/pip install numpy scipy   # once
    .venv/bin/python scripts/stiff_reference.py
"""
import pathlib
import time

import numpy as np
import scipy
from scipy.integrate import solve_ivp

N_SAMPLES = 16
RTOL = 1e-12
OUT = pathlib.Path(__file__).resolve().parent.parent / "kernels-gpu/tests/data/stiff_reference.rs"


# --- Robertson chemical kinetics --------------------------------------------------------
def robertson(k):
    k1, k2, k3 = k

    def f(t, y):
        return [-k1 * y[0] + k3 * y[1] * y[2],
                k1 * y[0] - k2 * y[1] * y[1] - k3 * y[1] * y[2],
                k2 * y[1] * y[1]]

    def jac(t, y):
        return [[-k1, k3 * y[2], k3 * y[1]],
                [k1, -2.0 * k2 * y[1] - k3 * y[2], -k3 * y[1]],
                [0.0, 2.0 * k2 * y[1], 0.0]]
    return f, jac


# --- HIRES (Hairer & Wanner II, Sec. IV.10; Mazzia & Magherini IVP test set) -------------
# The 1.71 in f1 and f2 (the rate of y1 -> y2) is scaled by p; the other 1.71s (in f4, f6)
# are separate rates and stay as in the literature.
def hires(p):
    r = 1.71 * p

    def f(t, y):
        y1, y2, y3, y4, y5, y6, y7, y8 = y
        f7 = 280.0 * y6 * y8 - 1.81 * y7
        return [-r * y1 + 0.43 * y2 + 8.32 * y3 + 0.0007,                  # f1
                r * y1 - 8.75 * y2,                                          # f2
                -10.03 * y3 + 0.43 * y4 + 0.035 * y5,                        # f3
                8.32 * y2 + 1.71 * y3 - 1.12 * y4,                           # f4
                -1.745 * y5 + 0.43 * y6 + 0.43 * y7,                         # f5
                -280.0 * y6 * y8 + 0.69 * y4 + 1.71 * y5 - 0.43 * y6 + 0.69 * y7,  # f6
                f7,                                                          # f7
                -f7]                                                         # f8 = -f7

    def jac(t, y):
        y6, y8 = y[5], y[7]
        j = np.zeros((8, 8))
        j[0, :3] = [-r, 0.43, 8.32]
        j[1, :2] = [r, -8.75]
        j[2, 2:5] = [-10.03, 0.43, 0.035]
        j[3, 1:4] = [8.32, 1.71, -1.12]
        j[4, 4:7] = [-1.745, 0.43, 0.43]
        j[5, 3:8] = [0.69, 1.71, -280.0 * y8 - 0.43, 0.69, -280.0 * y6]
        j[6, 5:8] = [280.0 * y8, -1.81, 280.0 * y6]
        j[7] = -j[6]
        return j
    return f, jac


# --- Van der Pol, stiff (unscaled time) ---------------------------------------------------
def van_der_pol(mu):
    def f(t, y):
        return [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]]

    def jac(t, y):
        return [[0.0, 1.0], [-2.0 * mu * y[0] * y[1] - 1.0, mu * (1.0 - y[0] * y[0])]]
    return f, jac


# --- Oregonator (Hairer & Wanner II, Sec. IV.1) -------------------------------------------
OREG_Q, OREG_W = 8.375e-6, 0.161


def oregonator(s):
    q, w = OREG_Q, OREG_W

    def f(t, y):
        return [s * (y[1] + y[0] * (1.0 - q * y[0] - y[1])),
                (y[2] - (1.0 + y[0]) * y[1]) / s,
                w * (y[0] - y[2])]

    def jac(t, y):
        return [[s * (1.0 - 2.0 * q * y[0] - y[1]), s * (1.0 - y[0]), 0.0],
                [-y[1] / s, -(1.0 + y[0]) / s, 1.0 / s],
                [w, 0.0, -w]]
    return f, jac


def s_factor(j):  # 0.5 .. 2, geometric in j = 0..15
    return 2.0 ** ((j - 7.5) / 7.5)


# name, system, per-sample parameter(s), y0, t_end, atol
WORKLOADS = [
    ("ROBERTSON", robertson,
     [[0.04 * s_factor(i), 3e7 * s_factor((5 * i) % 16), 1e4 * s_factor((11 * i) % 16)]
      for i in range(N_SAMPLES)],
     [1.0, 0.0, 0.0], 1e5, 1e-20),
    ("HIRES", hires, [0.8 + 0.4 * i / 15 for i in range(N_SAMPLES)],
     [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057], 321.8122, 1e-16),
    ("VAN_DER_POL", van_der_pol, [1000.0 * (0.9 + 0.2 * i / 15) for i in range(N_SAMPLES)],
     [2.0, 0.0], 3000.0, 1e-16),
    ("OREGONATOR", oregonator, [77.27 * (0.9 + 0.2 * i / 15) for i in range(N_SAMPLES)],
     [1.0, 2.0, 3.0], 360.0, 1e-16),
]
TITLES = {"ROBERTSON": "Robertson", "HIRES": "HIRES", "VAN_DER_POL": "Van der Pol",
          "OREGONATOR": "Oregonator"}
DOCS = {
    "ROBERTSON": "Robertson: per sample ([k1, k2, k3], y(t_end)), t_end = ROBERTSON_T_END.",
    "HIRES": "HIRES: per sample (factor p on the rate 1.71, y(t_end)).",
    "VAN_DER_POL": "Van der Pol, stiff: per sample (mu, y(t_end)).",
    "OREGONATOR": "Oregonator: per sample (s, y(t_end)).",
}
CHECK_METHOD = "BDF"  # falls back to LSODA where BDF gives up (Van der Pol jumps)


def solve(system, param, y0, t_end, atol, method):
    f, jac = system(param)
    sol = solve_ivp(f, (0.0, t_end), y0, method=method, rtol=RTOL, atol=atol, jac=jac)
    assert sol.success and sol.t[-1] == t_end, sol.message
    return sol.y[:, -1]


def lit(x):
    """An f64 literal: repr() always has '.', 'e', (or is inf/nan, which we refuse)."""
    x = float(x)
    assert np.isfinite(x)
    r = repr(x)
    assert "." in r or "e" in r
    return r


def arr(xs):
    return "[" + ", ".join(lit(x) for x in xs) + "]"


def main():
    start = time.perf_counter()
    # Sanity check of the HIRES right-hand side against the published reference (p = 1).
    published = [0.7371312573325668e-3, 0.1442485726316185e-3, 0.5888729740967575e-4,
                 0.1175651343283149e-2, 0.2386356198831331e-2, 0.6238968252742796e-2,
                 0.2849998395185769e-2, 0.2850001604814231e-2]
    y = solve(hires, 1.0, WORKLOADS[1][3], 321.8122, 1e-16, "Radau")
    lit_diff = float(np.max(np.abs(y - published) / np.abs(published)))
    print(f"HIRES p=1 vs published reference: max rel diff {lit_diff:.2e}")
    assert lit_diff < 1e-8

    blocks, checks = [], []
    for name, system, params, y0, t_end, atol in WORKLOADS:
        t0 = time.perf_counter()
        rows, worst, method_used = [], 0.0, set()
        for p in params:
            ref = solve(system, p, y0, t_end, atol, "Radau")
            try:
                chk = solve(system, p, y0, t_end, atol, CHECK_METHOD)
                used = CHECK_METHOD
            except AssertionError:  # BDF: 'step size less than spacing' on Van der Pol
                chk = solve(system, p, y0, t_end, atol, "LSODA")
                used = "LSODA"
            method_used.add(used)
            worst = max(worst, float(np.max(np.abs(ref - chk) / np.maximum(np.abs(ref), 1e-300))))
            ptxt = arr(p) if isinstance(p, list) else lit(p)
            rows.append(f"    ({ptxt}, {arr(ref)}),")
        used = "/".join(sorted(method_used))
        print(f"{name}: {used} vs Radau max rel diff {worst:.2e} "
              f"({time.perf_counter() - t0:.1f} s)")
        checks.append(f"{used} {worst:.1e} ({TITLES[name]})")
        ptype = "[f64; 3]" if name == "ROBERTSON" else "f64"
        blocks.append(
            f"pub const {name}_T_END: f64 = {lit(t_end)};\n"
            f"/// {DOCS[name]}\n"
            f"pub const {name}: [({ptype}, [f64; {len(y0)}]); {N_SAMPLES}] = [\n"
            + "\n".join(rows) + "\n];\n")

    atols = ", ".join(f"{a:g} ({TITLES[n]})" for n, _, _, _, _, a in WORKLOADS)
    header = (
        f"// Generated by scripts/stiff_reference.py (scipy {scipy.__version__}, numpy "
        f"{np.__version__}): Radau, rtol {RTOL:g}, atol {atols}, analytic Jacobians.\n"
        f"// Check (BDF, or LSODA where BDF gives up) at rtol {RTOL:g}, max rel diff: "
        + ", ".join(checks) + ".\n"
        f"// HIRES with p = 1 matches the published reference to {lit_diff:.1e}. "
        "Do not edit; rerun the script.\n")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(header + "\n".join(blocks))
    print(f"wrote {OUT}")
    print(f"total run time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
