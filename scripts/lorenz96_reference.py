#!/usr/bin/env python3
"""Lorenz-96 (40 sites) with classic RK4, in plain Python floats (IEEE binary64): an
independent implementation for tests/it/lorenz96.rs, which runs this script.

Usage: lorenz96_reference.py N_SAMPLES
The ensemble (as the test builds it): forcing F_i = 6 + 4 i / (n - 1); u_j(0) = F_i +
((7 j + 3 i) mod 11) / 100; t0_i = -(i mod 7) * 0.05; dt = 0.01; steps until
t >= t_end - dt / 2 with t_end = 1. Prints one line per sample: the 40 final values, then
t, each as repr (shortest round-trip digits).
"""
import sys

N = 40
DT = 0.01
T_END = 1.0


def rhs(u, forcing):
    return [(u[(i + 1) % N] - u[(i + N - 2) % N]) * u[(i + N - 1) % N] - u[i] + forcing
            for i in range(N)]


def rk4(u, forcing, h):
    half = h * 0.5
    k1 = rhs(u, forcing)
    k2 = rhs([u[j] + half * k1[j] for j in range(N)], forcing)
    k3 = rhs([u[j] + half * k2[j] for j in range(N)], forcing)
    k4 = rhs([u[j] + h * k3[j] for j in range(N)], forcing)
    sixth = h / 6.0
    return [u[j] + sixth * (k1[j] + 2.0 * (k2[j] + k3[j]) + k4[j]) for j in range(N)]


def main():
    n = int(sys.argv[1])
    for i in range(n):
        forcing = 6.0 + 4.0 * i / (n - 1)
        u = [forcing + ((7 * j + 3 * i) % 11) / 100.0 for j in range(N)]
        t = -(i % 7) * 0.05
        while not t >= T_END - DT * 0.5:
            u = rk4(u, forcing, DT)
            t += DT
        print(" ".join(repr(v) for v in u + [t]))


main()
