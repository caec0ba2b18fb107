//! `cbrt`, `hypot`.
//!
//! **cbrt**: `|x| = 2^(3k+j) m` with `m` in `[1, 2)`, `j` in {0, 1, 2}; a degree-3 Chebyshev
//! guess of `cbrt(2^j m)` on `[1, 8)` (error < 0.01), Newton steps
//! (3 in `f64`, 2 in `f32`), and a last Newton step whose residual `y^3 - a` is computed in
//! double words, so the result is within about half an ulp. **hypot** (Borges, "An improved
//! algorithm for hypot(a, b)", 2019, the fused variant): `h = sqrt(fma(a, a, b*b))` corrected
//! by the exact residual of `h^2 - a^2 - b^2`, with power-of-two scaling against overflow and
//! underflow.

use super::prim::*;
use crate::lane::Lane;

/// Cube root.
#[inline(always)]
pub fn cbrt<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let (e, m) = split_exponent(ax);
    // e is for m in [sqrt(1/2), sqrt(2)); move m to [1, 2).
    let low = m.simd_lt(c(1.0));
    let m = L::select(low, m + m, m);
    let e = L::select(low, e - c(1.0), e);
    let kq = super::rounding::floor(e / c(3.0));
    let j = e - c::<L>(3.0) * kq;
    let a = m * L::select(
        j.simd_eq(c(2.0)),
        c(4.0),
        L::select(j.simd_eq(c(1.0)), c(2.0), c(1.0)),
    );
    let mut y = poly(a, E::<L>::CBRT_GUESS);
    let steps = if E::<L>::MANT_BITS > 30 { 3 } else { 2 };
    for _ in 0..steps {
        y = (y + y + a / (y * y)) * c(1.0 / 3.0);
    }
    let (y2, y2l) = two_prod(y, y);
    let res = y.mul_add(y2, -a) + y * y2l;
    y -= res / (c::<L>(3.0) * y2);
    let (_, ki) = round_int(kq);
    let v = copysign(y * pow2::<L>(ki), x);
    L::select(x.is_finite() & !x.simd_eq(c(0.0)), v, x)
}

/// `sqrt(x^2 + y^2)` without undue overflow or underflow (inf if either is infinite).
#[inline(always)]
pub fn hypot<L: Lane>(x: L, y: L) -> L {
    let (ax, ay) = (x.abs(), y.abs());
    let a0 = ax.max(ay);
    let b0 = ax.min(ay);
    let big = a0.simd_gt(k(E::<L>::HYPOT_BIG));
    let small = a0.simd_lt(k(E::<L>::HYPOT_SMALL));
    let s = L::select(
        big,
        k(E::<L>::HYPOT_DOWN),
        L::select(small, k(E::<L>::HYPOT_UP), c(1.0)),
    );
    // A power of two: exact.
    let unscale = c::<L>(1.0) / s;
    let (a, b) = (a0 * s, b0 * s);
    let h = a.mul_add(a, b * b).sqrt();
    let h_sq = h * h;
    let a_sq = a * a;
    let r = (-b).mul_add(b, h_sq - a_sq) + h.mul_add(h, -h_sq) - a.mul_add(a, -a_sq);
    let h = h - r / (h + h);
    let v = L::select(a.simd_eq(c(0.0)), c(0.0), h * unscale);
    let v = L::select(is_nan(x) | is_nan(y), x + y, v);
    L::select(ax.simd_eq(inf()) | ay.simd_eq(inf()), inf(), v)
}
