//! `atan`, `atan2`, `asin`, `acos`.
//!
//! **atan** (fdlibm's `atan`): `|x|` is reduced with breakpoints 7/16, 11/16, 19/16, 39/16 to
//! `t` in `[-7/16, 7/16]` around 0, 1/2, 1, 3/2 or inf, `atan x = atan(c) + atan t` with
//! `atan(c)` in two words and `atan t = t + t^3 P(t^2)`, `P` a Chebyshev interpolant
//! (`scripts/math_consts.py`). **atan2** takes `q = |y|/|x|` with its remainder
//! `(|y| - q|x|)/|x|` (a fused multiply-add) folded in as `ql / (1 + q^2)`, then the quadrant
//! as double words. **asin, acos**: `asin w = w + w^3 P(w^2)` on `[0, 1/2]` (Chebyshev
//! interpolant) and `asin x = pi/2 - 2 asin(sqrt((1-x)/2))` beyond, the square root's
//! rounding error folded back in (fdlibm's scheme).

use super::prim::*;
use crate::lane::Lane;

/// `atan(ax)` for `ax >= 0` (inf included) as a double word `(hi, lo)`.
#[inline(always)]
fn atan_dd<L: Lane>(ax: L) -> (L, L) {
    let (one, two) = (c::<L>(1.0), c::<L>(2.0));
    let id0 = ax.ge(c(7.0 / 16.0));
    let id1 = ax.ge(c(11.0 / 16.0));
    let id2 = ax.ge(c(19.0 / 16.0));
    let id3 = ax.ge(c(39.0 / 16.0));
    let three_halves = c::<L>(1.5);
    let num = L::select(id0, two * ax - one, ax);
    let num = L::select(id1, ax - one, num);
    let num = L::select(id2, ax - three_halves, num);
    let num = L::select(id3, -one, num);
    let den = L::select(id0, two + ax, one);
    let den = L::select(id1, ax + one, den);
    let den = L::select(id2, one + three_halves * ax, den);
    let den = L::select(id3, ax, den);
    let t = num / den;
    let (h, l) = (E::<L>::ATAN_HI, E::<L>::ATAN_LO);
    let pick = |v: &[E<L>]| {
        let r = L::select(id0, k(v[0]), c(0.0));
        let r = L::select(id1, k(v[1]), r);
        let r = L::select(id2, k(v[2]), r);
        L::select(id3, k(v[3]), r)
    };
    let (ah, al) = (pick(h), pick(l));
    let z = t * t;
    (ah, ((t * z) * poly(z, E::<L>::ATAN_POLY) + al) + t)
}

/// Arc tangent.
#[inline(always)]
pub fn atan<L: Lane>(x: L) -> L {
    let (h, l) = atan_dd(x.abs());
    copysign(h + l, x)
}

/// Four-quadrant arc tangent of `y / x` (`y.atan2(x)`).
#[inline(always)]
pub fn atan2<L: Lane>(y: L, x: L) -> L {
    let (ax, ay) = (x.abs(), y.abs());
    let zero = c::<L>(0.0);
    let q = ay / ax;
    let ql = (-q).mul_add(ax, ay) / ax;
    let both_inf = ax.eq(inf()) & ay.eq(inf());
    let both_zero = ax.eq(zero) & ay.eq(zero);
    let q = L::select(both_inf, c(1.0), L::select(both_zero, zero, q));
    let ql = L::select(ql.is_finite() & !both_inf & !both_zero, ql, zero);
    let (h, l) = atan_dd(q);
    let l = l + ql / q.mul_add(q, c(1.0));
    let (s, e) = two_sum(k::<L>(E::<L>::PI_HI), -h);
    let neg_x = sign_bit(x);
    let h2 = L::select(neg_x, s, h);
    let l2 = L::select(neg_x, (e + k(E::<L>::PI_LO)) - l, l);
    let v = copysign(h2 + l2, y);
    L::select(is_nan(x) | is_nan(y), x + y, v)
}

/// For `ax` in `[1/2, 1]`: `w = sqrt((1 - ax)/2)` and `asin w` as `w + lo`: `(w, lo)`.
#[inline(always)]
fn asin_big<L: Lane>(ax: L) -> (L, L) {
    let t = (c::<L>(1.0) - ax) * c(0.5);
    let w = t.sqrt();
    let cw = (-w).mul_add(w, t) / (w + w);
    let cw = L::select(w.eq(c(0.0)), c(0.0), cw);
    let lo = (w * t) * poly(t, E::<L>::ASIN_POLY) + cw * t.mul_add(c(0.5), c(1.0));
    (w, lo)
}

/// Arc sine.
#[inline(always)]
pub fn asin<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let z = x * x;
    let small = x + (x * z) * poly(z, E::<L>::ASIN_POLY);
    let (w, lo) = asin_big(ax);
    let (s, e) = two_sum(k::<L>(E::<L>::PIO2_1), -(w + w));
    let big = s + ((e + k(E::<L>::PIO2_2)) - (lo + lo));
    L::select(ax.lt(c(0.5)), small, copysign(big, x))
}

/// Arc cosine.
#[inline(always)]
pub fn acos<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let z = x * x;
    let (s, e) = two_sum(k::<L>(E::<L>::PIO2_1), -x);
    let small = s + ((e + k(E::<L>::PIO2_2)) - (x * z) * poly(z, E::<L>::ASIN_POLY));
    let (w, lo) = asin_big(ax);
    let pos = (w + w) + (lo + lo);
    let (s2, e2) = two_sum(k::<L>(E::<L>::PI_HI), -(w + w));
    let neg = s2 + ((e2 + k(E::<L>::PI_LO)) - (lo + lo));
    let big = L::select(x.gt(c(0.0)), pos, neg);
    L::select(ax.lt(c(0.5)), small, big)
}
