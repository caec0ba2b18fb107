#!/usr/bin/env python3
"""Generates kernels-gpu/src/math/tables.rs: the constants of hawk::math.

Every constant is computed here at 300 bits with mpmath and rounded to nearest f64/f32:
Taylor coefficients (exact rationals), splits of ln 2, pi/2, 2/pi, log10(2) into parts, and
near-minimax polynomial coefficients (Chebyshev interpolation, `mpmath.chebyfit`) for exp, ln, atan,
asin, tanh and the first cube-root guess. Run: python3 scripts/math_consts.py > \
kernels-gpu/src/math/tables.rs
"""
import mpmath as mp

mp.mp.prec = 400
PREC = {"f64": 53, "f32": 24}


def rnd(x, t):
    """x rounded to nearest t."""
    with mp.workprec(PREC[t]):
        return mp.mpf(x) * 1


def trim(x, bits):
    """x rounded to `bits` significant bits."""
    with mp.workprec(bits):
        return mp.mpf(x) * 1


def lit(v, t):
    v = float(rnd(v, t))
    s = repr(v)
    if "e" not in s and "." not in s and "inf" not in s:
        s += ".0"
    return s + "_" + t


def parts(x, t, n):
    out = []
    for _ in range(n):
        p = rnd(x, t)
        out.append(p)
        x = x - p
    return out


def cheb(g, a, b, t, target):
    """Near-minimax coefficients (lowest degree first) of g on [a, b], rounded to t."""
    for n in range(2, 30):
        c, err = mp.chebyfit(g, [a, b], n, error=True)
        if err < target:
            return [rnd(v, t) for v in reversed(c)], err
    raise SystemExit("no fit")


def cheb_n(g, a, b, t, n):
    """The Chebyshev interpolant of g on [a, b] with n coefficients (lowest degree first),
    rounded to t, and the largest error of the rounded polynomial on a grid."""
    c = mp.chebyfit(g, [a, b], n)
    r = [rnd(v, t) for v in c]
    err = max(abs(mp.polyval(r, x) - g(x)) for x in mp.linspace(a, b, 2001))
    return list(reversed(r)), err


def fact(n):
    return mp.factorial(n)


def table(t):
    ln2, pi = mp.log(2), mp.pi
    f64 = t == "f64"
    out = []

    def c(name, v, doc):
        out.append((name, "Self", lit(v, t), doc))

    def arr(name, vs, doc):
        out.append((name, "&'static [Self]", "&[" + ", ".join(lit(v, t) for v in vs) + "]", doc))

    ebits = 11 if f64 else 8
    hb = PREC[t] - ebits
    c("LN2_HI", trim(ln2, hb), f"ln 2 to {hb} bits: k * LN2_HI is exact for every exponent k")
    c("LN2_LO", rnd(ln2 - trim(ln2, hb), t), "ln 2 - LN2_HI")
    c("LN2", rnd(ln2, t), "ln 2, rounded")
    c("LN2_TAIL", rnd(ln2 - rnd(ln2, t), t), "ln 2 - LN2")
    c("LOG2E", rnd(1 / ln2, t), "1 / ln 2, rounded")
    c("LOG2E_TAIL", rnd(1 / ln2 - rnd(1 / ln2, t), t), "1 / ln 2 - LOG2E")
    c("LOG10E", rnd(1 / mp.log(10), t), "1 / ln 10, rounded")
    c("LOG10E_TAIL", rnd(1 / mp.log(10) - rnd(1 / mp.log(10), t), t), "1 / ln 10 - LOG10E")
    l102 = mp.log10(2)
    c("LOG10_2_HI", trim(l102, hb), f"log10(2) to {hb} bits: e * LOG10_2_HI is exact")
    c("LOG10_2_LO", rnd(l102 - trim(l102, hb), t), "log10(2) - LOG10_2_HI")
    c("TWO_THIRDS", rnd(mp.mpf(2) / 3, t), "2/3, rounded")
    c("TWO_THIRDS_TAIL", rnd(mp.mpf(2) / 3 - rnd(mp.mpf(2) / 3, t), t), "2/3 - TWO_THIRDS")
    n_exp = 14 if f64 else 8
    arr("EXP_POLY", [1 / fact(i) for i in range(2, n_exp + 1)],
        f"Taylor coefficients 1/i! of e^r, i = 2..{n_exp} (|r| <= ln2/2)")
    def g_exp(r):
        return (mp.exp(r) - 1 - r) / (r * r) if r != 0 else mp.mpf(1) / 2

    rmax = mp.mpf("0.347")
    co, e = cheb_n(g_exp, -rmax, rmax, t, 10 if f64 else 6)
    arr("EXP_FAST_POLY", co, f"(e^r - 1 - r)/r^2 on [-0.347, 0.347]: Chebyshev interpolant, degree {len(co) - 1}, max error {mp.nstr(e, 3)}")

    def g_log(z):
        s = mp.sqrt(z)
        return (2 * mp.atanh(s) - 2 * s) / (s * z) if z > 0 else mp.mpf(2) / 3

    co, e = cheb_n(g_log, 0, mp.mpf("0.0295"), t, 7 if f64 else 4)
    arr("LOG_POLY", co, f"(ln((1+s)/(1-s)) - 2s)/s^3 in z = s^2 on [0, 0.0295] (|s| <= 3 - 2 sqrt 2): Chebyshev interpolant, degree {len(co) - 1}, max error {mp.nstr(e, 3)}")
    n_plog = 11 if f64 else 5
    arr("POW_LOG_POLY", [mp.mpf(2) / (2 * i + 1) for i in range(2, n_plog + 2)],
        f"Taylor coefficients 2/(2i+1), i = 2..{n_plog + 1}: the s^5 and later terms of ln((1+s)/(1-s))")
    n_sin = 8 if f64 else 4
    arr("SIN_POLY", [(-1) ** i / fact(2 * i + 1) for i in range(1, n_sin + 1)],
        f"Taylor coefficients (-1)^i/(2i+1)!, i = 1..{n_sin}, of (sin r - r)/r^3 in r^2")
    arr("COS_POLY", [(-1) ** i / fact(2 * i) for i in range(2, n_sin + 2)],
        f"Taylor coefficients (-1)^i/(2i)!, i = 2..{n_sin + 1}, of (cos r - 1 + r^2/2)/r^4 in r^2")
    n_sinh = 8 if f64 else 5
    arr("SINH_POLY", [1 / fact(2 * i + 1) for i in range(1, n_sinh + 1)],
        f"Taylor coefficients 1/(2i+1)!, i = 1..{n_sinh}, of (sinh x - x)/x^3 in x^2 (|x| < 1)")
    p = parts(pi / 2, t, 4)
    for i, v in enumerate(p):
        c(f"PIO2_{i + 1}", v, f"pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_4 (part {i + 1}, each rounded to nearest)")
    c("TWO_OVER_PI", rnd(2 / pi, t), "2/pi, rounded")
    c("PI_HI", rnd(pi, t), "pi, rounded")
    c("PI_LO", rnd(pi - rnd(pi, t), t), "pi - PI_HI")
    s = 600 if f64 else 80
    nch = 24 if f64 else 9
    with mp.workprec(2000):
        chunks = parts(2 / mp.pi * mp.mpf(2) ** s, t, nch)
    arr("TWO_OVER_PI_CHUNKS", chunks,
        f"2/pi * 2^{s} as a sum of {nch} numbers (greedy: each the nearest to what is left)")
    c("PH_SCALE", mp.mpf(2) ** (-s), f"2^-{s}: huge trigonometric arguments are scaled by it (exactly) before the product with TWO_OVER_PI_CHUNKS")
    tgt = mp.mpf(2) ** (-62) if f64 else mp.mpf(2) ** (-30)

    def odd_g(f):
        return lambda z: (f(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z)) if z > 0 else mp.mpf(0)

    # the z -> 0 limits, so chebyfit never evaluates 0/0
    def g_atan(z):
        return (mp.atan(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z)) if z > 0 else mp.mpf(-1) / 3

    def g_asin(z):
        return (mp.asin(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z)) if z > 0 else mp.mpf(1) / 6

    def g_tanh(z):
        return (mp.tanh(mp.sqrt(z)) - mp.sqrt(z)) / (z * mp.sqrt(z)) if z > 0 else mp.mpf(-1) / 3

    co, e = cheb(g_atan, 0, (mp.mpf(7) / 16) ** 2, t, tgt)
    arr("ATAN_POLY", co, f"(atan t - t)/t^3 in z = t^2 on [0, (7/16)^2]: Chebyshev interpolant, degree {len(co) - 1}, max error {mp.nstr(e, 3)}")
    at = [mp.atan(mp.mpf(1) / 2), mp.pi / 4, mp.atan(mp.mpf(3) / 2), mp.pi / 2]
    arr("ATAN_HI", [rnd(v, t) for v in at], "atan(1/2), atan(1), atan(3/2), atan(inf), rounded")
    arr("ATAN_LO", [rnd(v - rnd(v, t), t) for v in at], "atan(c) - ATAN_HI")
    co, e = cheb(g_asin, 0, mp.mpf(1) / 4, t, tgt)
    arr("ASIN_POLY", co, f"(asin w - w)/w^3 in z = w^2 on [0, 1/4]: Chebyshev interpolant, degree {len(co) - 1}, max error {mp.nstr(e, 3)}")
    co, e = cheb(g_tanh, 0, mp.mpf("0.55") ** 2, t, tgt)
    arr("TANH_POLY", co, f"(tanh x - x)/x^3 in z = x^2 on [0, 0.55^2]: Chebyshev interpolant, degree {len(co) - 1}, max error {mp.nstr(e, 3)}")
    co, e = cheb(mp.cbrt, 1, 8, t, mp.mpf("0.01"))
    arr("CBRT_GUESS", co, f"cbrt(m) on [1, 8]: Chebyshev interpolant, degree {len(co) - 1}, max error {mp.nstr(e, 3)} (a first guess for Newton)")
    return out


print("//! The constants of `hawk::math`, generated by `scripts/math_consts.py` (mpmath at 400")
print("//! bits, each value rounded to nearest). Do not edit by hand: edit and rerun the script.")
print("// Exact values as generated: clippy's suggestions (std's constants, fewer digits) would be")
print("// the same numbers, spelled differently from the script's output.")
print("#![allow(clippy::approx_constant, clippy::excessive_precision)]")
print()
print("use super::consts::Consts;")
for t in ("f64", "f32"):
    print()
    print(f"impl Consts for {t} {{")
    for name, ty, val, doc in table(t):
        print(f"    /// {doc}")
        print(f"    const {name}: {ty} = {val};")
    print("}")
