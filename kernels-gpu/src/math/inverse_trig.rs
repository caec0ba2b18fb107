//! `atan`, `atan2`, `asin`, `acos`.
//!
//! **atan** (fdlibm's `atan`): `|x|` is reduced with breakpoints 7/16, 11/16, 19/16, 39/16 to
//! `t` in `[-7/16, 7/16]` around 0, 1/2, 1, 3/2 or inf, `atan x = atan(c) + atan t` with
//! `atan(c)` in two words and `atan t = t + t^3 P(t^2)`, `P` a Chebyshev interpolant
//! (`scripts/math_consts.py`); `t` is kept as a double word. **atan2** takes `q = |y|/|x|`
//! with its remainder `(|y| - q|x|)/|x|` (a fused multiply-add) as a double word into the
//! same reduction, then the quadrant as double words. **asin, acos**: `asin w = w + w^3 P(w^2)` on `[0, 1/2]` (Chebyshev
//! interpolant) and `asin x = pi/2 - 2 asin(sqrt((1-x)/2))` beyond, the square root's
//! rounding error folded back in (fdlibm's scheme).

use super::prim::*;
use crate::lane::Lane;

/// `atan(ax + axl)` for `ax >= 0` (inf included) and a tiny `axl`, as a double word
/// `(hi, lo)`. The reduced argument `t = num / den` is kept as a double word (`num` is exact,
/// `den` is formed as a double word), so its rounding does not reach the result.
#[inline(always)]
fn atan_dd<L: Lane>(ax: L, axl: L) -> (L, L) {
    let (zero, one, two) = (c::<L>(0.0), c::<L>(1.0), c::<L>(2.0));
    let id0 = ax.simd_ge(c(7.0 / 16.0));
    let id1 = ax.simd_ge(c(11.0 / 16.0));
    let id2 = ax.simd_ge(c(19.0 / 16.0));
    let id3 = ax.simd_ge(c(39.0 / 16.0));
    let three_halves = c::<L>(1.5);
    // Numerators: exact (Sterbenz) in their intervals; their low parts come from axl.
    let num = L::select(id0, two * ax - one, ax);
    let num = L::select(id1, ax - one, num);
    let num = L::select(id2, ax - three_halves, num);
    let num = L::select(id3, -one, num);
    let num_l = L::select(id0, two * axl, axl);
    let num_l = L::select(id2, three_halves * axl, L::select(id1, axl, num_l));
    let num_l = L::select(id3, zero, num_l);
    // Denominators as double words.
    let (d0, e0) = fast_two_sum(two, ax);
    let (d1, e1) = two_sum(ax, one);
    let (p2, pl2) = two_prod(three_halves, ax);
    let (d2, e2) = two_sum(one, p2);
    let den = L::select(id0, d0, one);
    let den = L::select(id1, d1, den);
    let den = L::select(id2, d2, den);
    let den = L::select(id3, ax, den);
    let den_l = L::select(id0, e0 + axl, zero);
    let den_l = L::select(id1, e1 + axl, den_l);
    let den_l = L::select(id2, (e2 + pl2) + three_halves * axl, den_l);
    let den_l = L::select(id3, axl, den_l);
    let t = num / den;
    let tl = ((-t).mul_add(den, num) + num_l - t * den_l) / den;
    let tl = L::select(tl.is_finite(), tl, zero);
    let (h, l) = (E::<L>::ATAN_HI, E::<L>::ATAN_LO);
    let pick = |v: &[E<L>]| {
        let r = L::select(id0, k(v[0]), zero);
        let r = L::select(id1, k(v[1]), r);
        let r = L::select(id2, k(v[2]), r);
        L::select(id3, k(v[3]), r)
    };
    let (ah, al) = (pick(h), pick(l));
    let z = t * t;
    let lo = (t * z) * poly(z, E::<L>::ATAN_POLY) + (al + tl / (one + z));
    (ah, lo + t)
}

/// Arc tangent.
#[inline(always)]
pub fn atan<L: Lane>(x: L) -> L {
    let (h, l) = atan_dd(x.abs(), c(0.0));
    copysign(h + l, x)
}

/// Four-quadrant arc tangent of `y / x` (`y.atan2(x)`).
#[inline(always)]
pub fn atan2<L: Lane>(y: L, x: L) -> L {
    let (ax, ay) = (x.abs(), y.abs());
    let zero = c::<L>(0.0);
    let q = ay / ax;
    let ql = (-q).mul_add(ax, ay) / ax;
    let both_inf = ax.simd_eq(inf()) & ay.simd_eq(inf());
    let both_zero = ax.simd_eq(zero) & ay.simd_eq(zero);
    let q = L::select(both_inf, c(1.0), L::select(both_zero, zero, q));
    let ql = L::select(ql.is_finite() & !both_inf & !both_zero, ql, zero);
    let (h, l) = atan_dd(q, ql);
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
    let cw = L::select(w.simd_eq(c(0.0)), c(0.0), cw);
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
    L::select(ax.simd_lt(c(0.5)), small, copysign(big, x))
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
    let big = L::select(x.simd_gt(c(0.0)), pos, neg);
    L::select(ax.simd_lt(c(0.5)), small, big)
}
