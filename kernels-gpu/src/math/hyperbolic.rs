//! `sinh`, `cosh`, `tanh`.
//!
//! From `e^|x|` as a double word ([`super::exp_log`]'s core): `cosh = (e^x + e^-x)/2` and,
//! for `|x| >= 1`, `sinh = (e^x - e^-x)/2` in double words (`e^-x` from `1/e^x` with its
//! remainder), `e^|x|/2` beyond [`super::Format::HYP_BIG`]; `sinh x = x + x^3 P(x^2)`
//! (Taylor) below 1. `tanh x = 1 - 2/(e^2x + 1)` in double words for `|x| >= 0.55`, and
//! `x + x^3 P(x^2)` below, `P` a Chebyshev interpolant (`scripts/math_consts.py`).

use super::exp_log::{exp_core, exp_reduce};
use super::prim::*;
use crate::bits::IntLane;
use crate::lane::Lane;

/// `e^ax` and `e^-ax` for `ax >= 0`, as double words, and `e^ax / 2` rounded once (for
/// large `ax`, where the double words would overflow): `(eh, el, ih, il, half)`.
#[inline(always)]
fn exps<L: Lane>(ax: L) -> (L, L, L, L, L) {
    let (ki, rh, rl) = exp_reduce(ax);
    let (s, lo) = exp_core(rh, rl);
    let half = scale(s + lo, ki.sub(L::Int::splat(1)));
    let kk = L::Int::select(ax.simd_lt(k(E::<L>::HYP_BIG)), ki, L::Int::splat(0));
    let (eh, el) = (scale(s, kk), scale(lo, kk));
    let ih = c::<L>(1.0) / eh;
    let il = ((-ih).mul_add(eh, c(1.0)) - ih * el) * ih;
    (eh, el, ih, il, half)
}

/// Hyperbolic sine.
#[inline(always)]
pub fn sinh<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let z = x * x;
    let small = x + (x * z) * poly(z, E::<L>::SINH_POLY);
    let (eh, el, ih, il, half) = exps(ax);
    let (d, de) = two_sum(eh, -ih);
    let mid = (d + (de + (el - il))) * c(0.5);
    let big = L::select(ax.simd_lt(k(E::<L>::HYP_BIG)), mid, half);
    let v = L::select(ax.simd_lt(c(1.0)), small, copysign(big, x));
    L::select(is_nan(x) | x.simd_eq(c(0.0)), x, v)
}

/// Hyperbolic cosine.
#[inline(always)]
pub fn cosh<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let (eh, el, ih, il, half) = exps(ax);
    let (d, de) = two_sum(eh, ih);
    let mid = (d + (de + (el + il))) * c(0.5);
    let v = L::select(ax.simd_lt(k(E::<L>::HYP_BIG)), mid, half);
    L::select(is_nan(x), x, v)
}

/// Hyperbolic tangent.
#[inline(always)]
pub fn tanh<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let z = x * x;
    let small = x + (x * z) * poly(z, E::<L>::TANH_POLY);
    let a = ax.min(k(E::<L>::TANH_MAX));
    let (ki, rh, rl) = exp_reduce(a + a);
    let (s, lo) = exp_core(rh, rl);
    let (eh, el) = (scale(s, ki), scale(lo, ki));
    let (dh, dl0) = fast_two_sum(eh, c(1.0));
    let dl = dl0 + el;
    let qh = c::<L>(2.0) / dh;
    let ql = ((-qh).mul_add(dh, c(2.0)) - qh * dl) / dh;
    let (a1, b1) = two_sum(c(1.0), -qh);
    let big = a1 + (b1 - ql);
    let v = L::select(ax.simd_lt(c(0.55)), small, copysign(big, x));
    L::select(is_nan(x) | x.simd_eq(c(0.0)), x, v)
}
