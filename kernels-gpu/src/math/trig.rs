//! `sin`, `cos`, `sin_cos`, `tan`.
//!
//! Reduction to `[-pi/4, pi/4]` by [`super::reduce`], then fdlibm's kernels with Taylor
//! coefficients: `sin r = r + r^3 S(r^2)` (to `r^17` in `f64`, `r^9` in `f32`) and
//! `cos r = 1 - r^2/2 + r^4 C(r^2)` (to `r^18`, `r^10`), with `1 - r^2/2` compensated and the
//! reduction's low word folded in; both kept as double words so `tan` divides them with one
//! rounding (`tan = sin/cos`, or `-cos/sin` in odd quadrants).

use super::prim::*;
use super::reduce::reduce;
use crate::bits::IntLane;
use crate::lane::Lane;

/// `sin(rh + rl)` as a normalized double word.
#[inline(always)]
fn sin_kernel<L: Lane>(rh: L, rl: L, z: L) -> (L, L) {
    let lo = (rh * z) * poly(z, E::<L>::SIN_POLY) + rl * (c::<L>(1.0) - c::<L>(0.5) * z);
    fast_two_sum(rh, lo)
}

/// `cos(rh + rl)` as a normalized double word (`z + zl = rh^2` exactly).
#[inline(always)]
fn cos_kernel<L: Lane>(rh: L, rl: L, z: L, zl: L) -> (L, L) {
    let hz = c::<L>(0.5) * z;
    let w = c::<L>(1.0) - hz;
    let tail = (z * z) * poly(z, E::<L>::COS_POLY) - (c::<L>(0.5) * zl + rh * rl);
    fast_two_sum(w, ((c::<L>(1.0) - w) - hz) + tail)
}

/// Reduction and both kernels: `(q, sin, cos)` of the reduced argument, as double words.
#[inline(always)]
fn both<L: Lane>(x: L) -> (L::Int, (L, L), (L, L)) {
    let (q, rh, rl) = reduce(x);
    let (z, zl) = two_prod(rh, rh);
    (q, sin_kernel(rh, rl, z), cos_kernel(rh, rl, z, zl))
}

/// NaN for infinite and NaN arguments, `x` itself for zeros (keeps the sign of -0).
#[inline(always)]
fn finish_odd<L: Lane>(x: L, v: L) -> L {
    let v = L::select(x.is_finite(), v, nan());
    L::select(x.simd_eq(c(0.0)), x, v)
}

/// `(sin x, cos x)` from one reduction.
#[inline(always)]
pub fn sin_cos<L: Lane>(x: L) -> (L, L) {
    let (q, (sh, sl), (ch, cl)) = both(x);
    let (s, co) = (sh + sl, ch + cl);
    let one = L::Int::splat(1);
    let two = L::Int::splat(2);
    let swap = q.and(one).simd_eq(one);
    let sv = L::select(swap, co, s);
    let sv = L::select(q.and(two).simd_eq(two), -sv, sv);
    let cv = L::select(swap, s, co);
    let cv = L::select(q.add(one).and(two).simd_eq(two), -cv, cv);
    (finish_odd(x, sv), L::select(x.is_finite(), cv, nan()))
}

/// Sine.
#[inline(always)]
pub fn sin<L: Lane>(x: L) -> L {
    sin_cos(x).0
}

/// Cosine.
#[inline(always)]
pub fn cos<L: Lane>(x: L) -> L {
    sin_cos(x).1
}

/// Tangent: `sin/cos` of the reduced argument in double words, one rounding.
#[inline(always)]
pub fn tan<L: Lane>(x: L) -> L {
    let (q, (sh, sl), (ch, cl)) = both(x);
    let one = L::Int::splat(1);
    let odd = q.and(one).simd_eq(one);
    let (nh, nl) = (L::select(odd, ch, sh), L::select(odd, cl, sl));
    let (dh, dl) = (L::select(odd, sh, ch), L::select(odd, sl, cl));
    let qh = nh / dh;
    let rem = (-qh).mul_add(dh, nh);
    let v = qh + ((rem + nl) - qh * dl) / dh;
    finish_odd(x, L::select(odd, -v, v))
}
