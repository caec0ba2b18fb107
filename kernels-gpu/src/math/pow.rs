//! Powers: `powf`, `powi`.
//!
//! `x^y = e^(y ln|x|)` with `ln|x|` as a double word accurate to about 2^-100 (f64)
//! relative ([`super::exp_log`]'s `ln_dd`: the `s^3` term of `atanh` in double words), the
//! product with `y` as a double word and the exponential of a double word argument, rounded
//! once. The special cases follow IEEE 754 `pow` (C99 Annex F), by selects.

use super::exp_log::{exp_dd, ln_dd};
use super::prim::*;
use crate::lane::Lane;

/// Per lane: `y` is an integer (infinities count as even integers).
#[inline(always)]
fn is_int<L: Lane>(y: L) -> L::Mask {
    round_even(y).simd_eq(y)
}

/// Per lane: `y` is an odd integer.
#[inline(always)]
fn is_odd<L: Lane>(y: L) -> L::Mask {
    let h = y * c(0.5);
    is_int(y) & !is_int(h)
}

/// `|x|^y` for finite positive `|x|`, overflow and underflow included.
#[inline(always)]
fn pow_abs<L: Lane>(ax: L, y: L) -> L {
    let (hh, ll) = ln_dd(ax);
    let (ph, pl) = two_prod(y, hh);
    exp_dd(ph, pl + y * ll)
}

/// `x^y` (IEEE 754 `pow`).
#[inline(always)]
pub fn powf<L: Lane>(x: L, y: L) -> L {
    let (zero, one) = (c::<L>(0.0), c::<L>(1.0));
    let ax = x.abs();
    let finite_x = ax.simd_gt(zero) & ax.is_finite();
    let core = pow_abs(L::select(finite_x, ax, one), y);
    let odd = is_odd(y);
    let neg = sign_bit(x);
    let mut r = L::select(neg & odd, -core, core);
    r = L::select(x.simd_lt(zero) & !is_int(y), nan(), r);
    // x = +-0 and x = +-inf: 0 or inf, signed for odd y and a negative x.
    let zero_or_inf = L::select(ax.simd_eq(zero) ^ y.simd_lt(zero), zero, inf());
    let zero_or_inf = L::select(neg & odd, -zero_or_inf, zero_or_inf);
    r = L::select(ax.simd_eq(zero) | ax.simd_eq(inf()), zero_or_inf, r);
    // y = +-inf: 1 for |x| = 1, else 0 or inf.
    let y_inf = L::select(ax.simd_lt(one) ^ y.simd_lt(zero), zero, inf());
    let y_inf = L::select(ax.simd_eq(one), one, y_inf);
    r = L::select(y.abs().simd_eq(inf()), y_inf, r);
    r = L::select(is_nan(x) | is_nan(y), x + y, r);
    L::select(y.simd_eq(zero) | x.simd_eq(one), one, r)
}

/// `x^n` for an integer `n` (the same as `powf(x, n)`, with the sign from `n`'s parity).
#[inline(always)]
pub fn powi<L: Lane>(x: L, n: i32) -> L {
    let y = c::<L>(n as f64);
    let r = powf(x.abs(), y);
    if n & 1 != 0 { copysign(r, x) } else { r }
}
