//! Exponentials and logarithms: `exp`, `exp2`, `exp_m1`, `ln`, `log2`, `log10`, `ln_1p`.
//!
//! **exp**: `k = round(x / ln 2)` (a fused multiply-add onto a magic constant whose bits
//! then give `2^k`), `r = rh + rl = x - k ln 2` (Cody-Waite, `ln 2 = LN2_HI + LN2_LO`, `k *
//! LN2_HI` exact), `e^r = 1 + rh + t + rl (1 + rh + t)` with `t = rh^2 P(rh)`, `P` a
//! near-minimax polynomial of `(e^r - 1 - r)/r^2` on `|r| <= 0.347` (Chebyshev interpolant
//! from `scripts/math_consts.py`: degree 9 in `f64`, 5 in `f32`, evaluated as two
//! half-length Horner chains in `r^2`), `1 + rh` as an exact double word whose tail
//! collects the rest, so one rounding of `e^r` dominates; then `2^(k - n) 2^n`, only the
//! last product rounding (subnormals, overflow).
//! **exp_dd** (`powf`), **exp2**, **exp_m1**, `sinh`, `cosh` use the more precise
//! `exp_core`: the Taylor polynomial (degree 14 in `f64`, 8 in `f32`) with `1 + r + r^2/2`
//! in double words, good to about `2^-(p+6)` for a double-word argument.
//! **exp2** reduces `x - round(x)` exactly and multiplies it by ln 2 as a double word.
//! **exp_m1** uses `x + x^2/2 + x^3 P(x)` (the first two terms in double words) for
//! `|x| <= ln2/2` and `2^k e^r - 1` in double words beyond.
//! **ln** (fdlibm's scheme): `x = 2^e (1 + f)` with `1 + f` in `[sqrt(1/2), sqrt(2))` from
//! the bits (`bits(x) - bits(sqrt(1/2))` holds `e` in its exponent field), `s = f / (2 +
//! f)`, `ln(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))`, `R(z) = z Q(z)` with `Q` a
//! near-minimax polynomial of `(ln((1+s)/(1-s)) - 2s)/s^3` in `z = s^2 <= 0.0295`
//! (Chebyshev interpolant, degree 6 in `f64`, 3 in `f32`), plus `e ln 2` in two parts.
//! **log2, log10, ln_1p** and `powf` use `ln_dd`: `s = f / (2 + f)` in double words, `ln m
//! = 2 atanh s = 2s + 2s^3/3 + s^5 P(s^2)` (Taylor coefficients `2/(2i+1)`; the first two
//! terms in double words), plus `e ln 2`: `ln x` as a double word good to about
//! `2^-(2p-8)`, then the product with `1/ln 2` or `1/ln 10` (double words) rounded once.

use super::prim::*;
use crate::bits::IntLane;
use crate::lane::Lane;

/// `e^(rh + rl)` for `|rh| <= ln2/2 + tiny`, `|rl|` tiny, as a normalized double word
/// `(hi, lo)` (`hi = fl(hi + lo)`): `1 + r + r^2/2` in double words, `r^3 P(r)` in working
/// precision, so the pair is accurate to about `2^-(p+6)` relative.
#[inline(always)]
pub(crate) fn exp_core<L: Lane>(rh: L, rl: L) -> (L, L) {
    let (sq, sql) = two_prod(rh, rh);
    let (h, hl) = (sq * c(0.5), sql * c(0.5));
    let t3 = (sq * rh) * poly(rh, &E::<L>::EXP_POLY[1..]);
    let (s, e) = fast_two_sum(c::<L>(1.0), rh);
    let (s2, e2) = fast_two_sum(s, h);
    let tail = ((e + e2) + hl) + t3;
    fast_two_sum(s2, tail + rl * (s2 + tail))
}

/// `x = k ln 2 + rh + rl` for `x` clamped to the range where `e^x` is finite or just beyond:
/// `(k, rh, rl)`.
#[inline(always)]
pub(crate) fn exp_reduce<L: Lane>(x: L) -> (L::Int, L, L) {
    let x = x.max(k(E::<L>::EXP_MIN)).min(k(E::<L>::EXP_MAX));
    let (kf, ki) = round_int(x * k(E::<L>::LOG2E));
    let rh = (-kf).mul_add(k(E::<L>::LN2_HI), x);
    (ki, rh, -kf * k(E::<L>::LN2_LO))
}

/// `e^(xh + xl)` for a double word argument (`|xl| <= ulp(xh)`), rounded once, overflow
/// and underflow included. Used by `powf`.
#[inline(always)]
pub(crate) fn exp_dd<L: Lane>(xh: L, xl: L) -> L {
    let (ki, rh, rl) = exp_reduce(xh);
    let inside = xh.simd_ge(k(E::<L>::EXP_MIN)) & xh.simd_le(k(E::<L>::EXP_MAX));
    let (s, lo) = exp_core(rh, rl + L::select(inside, xl, c(0.0)));
    scale(s + lo, ki)
}

/// `e^x`: `k = round(x / ln 2)` (one fused multiply-add onto [`Format::EXP_MAGIC`], whose
/// bits then give `2^k`), `r = rh + rl = x - k ln 2`, `e^r = 1 + rh + t + rl (1 + rh + t)`
/// with `t = rh^2 P(rh)` and `1 + rh` as an exact double word, the rest summed into its tail, scaled by
/// `2^(k - n) * 2^n` (only the last product rounds, into the subnormals or to infinity).
#[inline(always)]
pub fn exp<L: Lane>(x: L) -> L {
    let xc = x.max(k(E::<L>::EXP_MIN)).min(k(E::<L>::EXP_MAX));
    let magic: L = k(E::<L>::EXP_MAGIC);
    let u = xc.mul_add(k(E::<L>::LOG2E), magic);
    let kf = u - magic;
    let rh = kf.mul_add(k(-E::<L>::LN2_HI), xc);
    let rl = kf * k(-E::<L>::LN2_LO);
    let r2 = rh * rh;
    let t = r2 * poly_eo(rh, r2, E::<L>::EXP_FAST_POLY);
    let hi = c::<L>(1.0) + rh;
    let lo = rh - (hi - c(1.0));
    let y = hi + (lo + rl.mul_add(hi + t, t));
    let neg = xc.simd_lt(c(0.0));
    let n = L::select(neg, k(E::<L>::EXP_SPLIT_NEG), k(E::<L>::EXP_SPLIT_POS));
    let p2 = L::from_bits((u - n).to_bits().shl(E::<L>::MANT_BITS));
    let v = (y * p2) * L::select(neg, k(E::<L>::EXP_SCALE_NEG), k(E::<L>::EXP_SCALE_POS));
    L::select(is_nan(x), x, v)
}

/// `2^x`.
#[inline(always)]
pub fn exp2<L: Lane>(x: L) -> L {
    let xc = x.max(k(E::<L>::EXP2_MIN)).min(k(E::<L>::EXP2_MAX));
    let (kf, ki) = round_int(xc);
    let r = xc - kf;
    let (rh, rl) = two_prod(r, k(E::<L>::LN2));
    let (s, lo) = exp_core(rh, rl + r * k(E::<L>::LN2_TAIL));
    let v = scale(s + lo, ki);
    L::select(is_nan(x), x, v)
}

/// `e^x - 1`, accurate near 0.
#[inline(always)]
pub fn exp_m1<L: Lane>(x: L) -> L {
    let (sq, sql) = two_prod(x, x);
    let (h, hl) = (sq * c(0.5), sql * c(0.5));
    let (a0, b0) = fast_two_sum(x, h);
    let small = a0 + (b0 + (hl + (sq * x) * poly(x, &E::<L>::EXP_POLY[1..])));
    let (ki, rh, rl) = exp_reduce(x);
    let (s, lo) = exp_core(rh, rl);
    let (sh, sl) = (scale(s, ki), scale(lo, ki));
    let (a, b) = two_sum(sh, c(-1.0));
    let big = a + (b + sl);
    let big = L::select(sh.is_finite(), big, scale(s + lo, ki));
    let v = L::select(x.abs().simd_le(c(0.34657359027997264)), small, big);
    L::select(is_nan(x) | x.simd_eq(c(0.0)), x, v)
}

/// `ln x * (mh + ml) + extra` rounded once, from `ln x` in double words; the special
/// values of a logarithm.
#[inline(always)]
fn log_times<L: Lane>(x: L, mh: L, ml: L, extra: L) -> L {
    let ok = x.simd_gt(c(0.0)) & x.is_finite();
    let (hh, ll) = ln_dd(L::select(ok, x, c(1.0)));
    let ll = ll + extra;
    let ph = hh * mh;
    let v = ph + (hh.mul_add(mh, -ph) + (hh * ml + ll * mh));
    let special = L::select(
        x.simd_eq(c(0.0)),
        c(f64::NEG_INFINITY),
        L::select(x.simd_lt(c(0.0)), nan(), x),
    );
    L::select(ok, v, special)
}

/// Natural logarithm (fdlibm's `log`: `ln(1+f) = f - f^2/2 + s (f^2/2 + R(s^2))` with
/// `s = f / (2 + f)`, `R` a near-minimax polynomial; one division, cheaper than the
/// double-word `ln_dd`). `x = 2^e (1 + f)` comes from the bits: `bits(x) - LOG_OFF` holds
/// `e` in its exponent field and `1 + f` in `[sqrt(1/2), sqrt(2))` is its significand field
/// put back onto `LOG_OFF`.
#[inline(always)]
pub fn ln<L: Lane>(x: L) -> L {
    let sub = x.simd_lt(k(E::<L>::MIN_NORMAL));
    let xs = L::select(sub, x * k(E::<L>::SUB_SCALE), x);
    let t = xs
        .to_bits()
        .sub(L::Int::splat(E::<L>::LOG_OFF - E::<L>::LOG_WRAP));
    let mant = t.and(L::Int::splat(E::<L>::MANT_MASK));
    let m = L::from_bits(mant.add(L::Int::splat(E::<L>::LOG_OFF)));
    let magic: L = k(E::<L>::LOG_MAGIC);
    // e = ef - LOG_MAGIC, or SUB_SHIFT less for a scaled subnormal
    let ef = L::from_bits(
        t.lshr(E::<L>::MANT_BITS)
            .add(k::<L>(E::<L>::INT_MAGIC).to_bits()),
    );
    let e = ef - L::select(sub, magic + k(E::<L>::SUB_SHIFT), magic);
    let f = m - c(1.0);
    let hfsq = c::<L>(0.5) * f * f;
    let s = f / (c::<L>(2.0) + f);
    let z = s * s;
    let r = z * poly_eo(z, z * z, E::<L>::LOG_POLY);
    let lo = e.mul_add(k(E::<L>::LN2_LO), s * (hfsq + r));
    let v = e.mul_add(k(E::<L>::LN2_HI), f - (hfsq - lo));
    // Selects rather than one mask `x > 0 & x < inf`: LLVM turns that mask into a range
    // check on the bits, ten integer operations on AVX2.
    let y = L::select(x.simd_lt(c(0.0)), nan(), x);
    let v = L::select(y.simd_lt(inf()), v, y);
    L::select(y.simd_eq(c(0.0)), c(f64::NEG_INFINITY), v)
}

/// Base-2 logarithm.
#[inline(always)]
pub fn log2<L: Lane>(x: L) -> L {
    log_times(x, k(E::<L>::LOG2E), k(E::<L>::LOG2E_TAIL), c(0.0))
}

/// Base-10 logarithm.
#[inline(always)]
pub fn log10<L: Lane>(x: L) -> L {
    log_times(x, k(E::<L>::LOG10E), k(E::<L>::LOG10E_TAIL), c(0.0))
}

/// `ln(1 + x)`, accurate near 0: `ln u + (x - (u - 1)) / u` for `u = fl(1 + x)`.
#[inline(always)]
pub fn ln_1p<L: Lane>(x: L) -> L {
    let u = c::<L>(1.0) + x;
    let d = (x - (u - c(1.0))) / u;
    let d = L::select(d.is_finite(), d, c(0.0));
    let v = log_times(u, c(1.0), c(0.0), d);
    L::select(x.simd_eq(c(0.0)), x, v)
}

/// `ln x` for positive finite `x` as a normalized double word, accurate to about
/// `2^-(2p-8)` relative: the `s` and `s^3` terms of `atanh` in double words, the rest in
/// working precision.
#[inline(always)]
pub(crate) fn ln_dd<L: Lane>(x: L) -> (L, L) {
    let (e, m) = split_exponent(x);
    let f = m - c(1.0);
    let (dh, dl) = fast_two_sum(c::<L>(2.0), f);
    // One division: `sh` is faithful, and its remainder is still exact.
    let inv = c::<L>(1.0) / dh;
    let sh = f * inv;
    let rem = (-sh).mul_add(dh, f);
    let sl = (rem - sh * dl) * inv;
    let (zh, zl) = two_prod(sh, sh);
    let s3h = zh * sh;
    let s3l = zh.mul_add(sh, -s3h) + zl * sh;
    let (tt, ttl) = (k::<L>(E::<L>::TWO_THIRDS), k::<L>(E::<L>::TWO_THIRDS_TAIL));
    let th = s3h * tt;
    let tl = s3h.mul_add(tt, -th) + (s3l * tt + s3h * ttl);
    let rest = (s3h * zh) * poly(zh, E::<L>::POW_LOG_POLY)
        + (sl + sl) * (c::<L>(1.0) + zh * (c::<L>(1.0) + zh));
    let (a, b) = two_sum(e * k(E::<L>::LN2_HI), sh + sh);
    let (a2, b2) = two_sum(a, th);
    let lo = ((b + b2) + tl) + (rest + e * k(E::<L>::LN2_LO));
    fast_two_sum(a2, lo)
}
