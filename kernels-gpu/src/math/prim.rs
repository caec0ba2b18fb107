//! The building blocks every family uses: constants, polynomials, exact sums and products
//! (double-word arithmetic), rounding to integers and powers of two from bits.

pub(crate) use super::{Consts, Format};
use crate::bits::IntLane;
use crate::lane::{Lane, Real};

/// The element type of lane `L`.
pub(crate) type E<L> = <L as Lane>::Elem;

/// `v` (exact in `f32` and `f64`) in every lane.
#[inline(always)]
pub(crate) fn c<L: Lane>(v: f64) -> L {
    L::splat(E::<L>::from_f64(v))
}

/// A table constant in every lane.
#[inline(always)]
pub(crate) fn k<L: Lane>(v: E<L>) -> L {
    L::splat(v)
}

/// `sum c[i] x^i` by Horner's rule with fused multiply-adds (`c` lowest degree first).
#[inline(always)]
pub(crate) fn poly<L: Lane>(x: L, c: &[E<L>]) -> L {
    let n = c.len();
    let mut acc = L::splat(c[n - 1]);
    let mut i = n - 1;
    while i > 0 {
        i -= 1;
        acc = acc.mul_add(x, L::splat(c[i]));
    }
    acc
}

/// `sum c[i] x^i` as `E(x^2) + x O(x^2)` (`x2 = x^2`): two independent Horner chains of half
/// the length, so half the latency of [`poly`] for one more operation.
#[inline(always)]
pub(crate) fn poly_eo<L: Lane>(x: L, x2: L, c: &[E<L>]) -> L {
    let n = c.len();
    // the highest even and odd indices
    let mut ie = (n - 1) & !1;
    let mut io = if n % 2 == 0 { n - 1 } else { n - 2 };
    let mut ev = L::splat(c[ie]);
    let mut od = L::splat(c[io]);
    while ie > 0 {
        ie -= 2;
        ev = ev.mul_add(x2, L::splat(c[ie]));
    }
    while io > 1 {
        io -= 2;
        od = od.mul_add(x2, L::splat(c[io]));
    }
    od.mul_add(x, ev)
}

/// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly (Knuth's TwoSum).
#[inline(always)]
pub(crate) fn two_sum<L: Lane>(a: L, b: L) -> (L, L) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `(s, e)` with `s + e = a + b` exactly, when `|a| >= |b|` (or `a` is 0) (Dekker).
#[inline(always)]
pub(crate) fn fast_two_sum<L: Lane>(a: L, b: L) -> (L, L) {
    let s = a + b;
    (s, b - (s - a))
}

/// `(p, e)` with `p = fl(a * b)` and `p + e = a * b` exactly (one fused multiply-add).
#[inline(always)]
pub(crate) fn two_prod<L: Lane>(a: L, b: L) -> (L, L) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// Per lane: NaN.
#[inline(always)]
pub(crate) fn is_nan<L: Lane>(x: L) -> L::Mask {
    !x.simd_eq(x)
}

/// Per lane: the sign bit is set (also for -0 and negative NaNs).
#[inline(always)]
pub(crate) fn sign_bit<L: Lane>(x: L) -> L::Mask {
    x.to_bits().simd_lt(L::Int::splat(0))
}

/// Per lane: `|x|` with the sign of `s`.
#[inline(always)]
pub(crate) fn copysign<L: Lane>(x: L, s: L) -> L {
    let abs = x.to_bits().and(L::Int::splat(E::<L>::ABS_MASK));
    L::from_bits(abs.or(s.to_bits().and(L::Int::splat(E::<L>::SIGN_MASK))))
}

/// For `|x| < 2^(p-2)`: the nearest integer (ties to even) as an element and as an integer.
#[inline(always)]
pub(crate) fn round_int<L: Lane>(x: L) -> (L, L::Int) {
    let magic: L = k(E::<L>::INT_MAGIC);
    let u = x + magic;
    (u - magic, u.to_bits().sub(magic.to_bits()))
}

/// A small integer (`|i| < 2^(p-2)`) as an element.
#[inline(always)]
pub(crate) fn int_to_float<L: Lane>(i: L::Int) -> L {
    let magic: L = k(E::<L>::INT_MAGIC);
    L::from_bits(i.add(magic.to_bits())) - magic
}

/// Any `x`: the nearest integer, ties to even (NaN and infinities unchanged).
#[inline(always)]
pub(crate) fn round_even<L: Lane>(x: L) -> L {
    let ax = x.abs();
    let big: L = k(E::<L>::TWO_P);
    let r = (ax + big) - big;
    L::select(ax.simd_lt(big), copysign(r, x), x)
}

/// `2^n` for `n` in the normal exponent range.
#[inline(always)]
pub(crate) fn pow2<L: Lane>(n: L::Int) -> L {
    let biased = n.add(L::Int::splat(E::<L>::EXP_BIAS));
    L::from_bits(biased.shl(E::<L>::MANT_BITS))
}

/// `y * 2^n` for `n` up to twice the normal exponent range (and above -2^20), rounded once (two exact
/// scalings of which only the last can round, into the subnormals or to infinity).
#[inline(always)]
pub(crate) fn scale<L: Lane>(y: L, n: L::Int) -> L {
    // floor(n / 2) with a logical shift (AVX2 has no 64-bit arithmetic one): n > -2^20.
    let off = L::Int::splat(1 << 20);
    let n1 = n.add(off).lshr(1).sub(L::Int::splat(1 << 19));
    y * pow2::<L>(n1) * pow2::<L>(n.sub(n1))
}

/// A positive finite `x` split as `2^e * m` with `m` in `[sqrt(1/2), sqrt(2))`: `(e, m)`
/// (subnormals included).
#[inline(always)]
pub(crate) fn split_exponent<L: Lane>(x: L) -> (L, L) {
    let sub = x.simd_lt(k(E::<L>::MIN_NORMAL));
    let xs = L::select(sub, x * k(E::<L>::SUB_SCALE), x);
    let bits = xs.to_bits();
    let mant = L::Int::splat(E::<L>::MANT_MASK);
    let one = L::Int::splat(E::<L>::EXP_BIAS << E::<L>::MANT_BITS);
    let m = L::from_bits(bits.and(mant).or(one));
    let ebits = bits
        .lshr(E::<L>::MANT_BITS)
        .sub(L::Int::splat(E::<L>::EXP_BIAS));
    let big = m.simd_gt(c(core::f64::consts::SQRT_2));
    let m = L::select(big, m * c(0.5), m);
    let e = int_to_float::<L>(ebits) + L::select(big, c(1.0), c(0.0));
    let e = e - L::select(sub, k(E::<L>::SUB_SHIFT), c(0.0));
    (e, m)
}

/// NaN in every lane.
#[inline(always)]
pub(crate) fn nan<L: Lane>() -> L {
    c(f64::NAN)
}

/// +inf in every lane.
#[inline(always)]
pub(crate) fn inf<L: Lane>() -> L {
    c(f64::INFINITY)
}
