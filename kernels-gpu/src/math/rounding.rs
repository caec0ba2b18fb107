//! `floor`, `ceil`, `round`, `trunc`, `fract`, `copysign`, `signum`, `recip`: exact (the
//! magic-number rounding `(|x| + 2^p) - 2^p` and sign-bit operations), no tables.

use super::prim::*;
use crate::lane::Lane;

/// The integer part (rounds toward zero).
#[inline(always)]
pub fn trunc<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let big: L = k(E::<L>::TWO_P);
    let r = (ax + big) - big;
    let r = L::select(r.simd_gt(ax), r - c(1.0), r);
    L::select(ax.simd_lt(big), copysign(r, x), x)
}

/// The largest integer not above `x`.
#[inline(always)]
pub fn floor<L: Lane>(x: L) -> L {
    let t = trunc(x);
    L::select(t.simd_gt(x), t - c(1.0), t)
}

/// The smallest integer not below `x`.
#[inline(always)]
pub fn ceil<L: Lane>(x: L) -> L {
    let t = trunc(x);
    L::select(t.simd_lt(x), t + c(1.0), t)
}

/// The nearest integer, halfway cases away from zero.
#[inline(always)]
pub fn round<L: Lane>(x: L) -> L {
    let t = trunc(x);
    let d = (x - t).abs();
    L::select(d.simd_ge(c(0.5)), t + copysign(c(1.0), x), t)
}

/// `x - trunc(x)`.
#[inline(always)]
pub fn fract<L: Lane>(x: L) -> L {
    x - trunc(x)
}

/// `|x|` with the sign of `s`.
#[inline(always)]
pub fn copysign_of<L: Lane>(x: L, s: L) -> L {
    copysign(x, s)
}

/// 1 for `+0` and positive values, -1 for `-0` and negative values, NaN for NaN.
#[inline(always)]
pub fn signum<L: Lane>(x: L) -> L {
    L::select(is_nan(x), x, copysign(c(1.0), x))
}

/// `1 / x`.
#[inline(always)]
pub fn recip<L: Lane>(x: L) -> L {
    c::<L>(1.0) / x
}
