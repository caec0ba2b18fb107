//! [`Multi`]: several SIMD vectors used as one lane group.

use super::{Lane, Mask};
use crate::bits::MultiInt;
use core::ops::*;

/// `G` SIMD vectors used as one lane group of `G * V::WIDTH` samples.
///
/// Unlike one long `Simd`, a mask reduction (`any`, `all`) first combines the `G` vector
/// masks with one OR/AND each and then tests a single vector, and widths that are not a
/// power of two (three AVX2 vectors: 12 `f64` lanes) compile to plain vector code. Several
/// independent vectors in flight hide the latency of a step's dependency chain.
#[derive(Clone, Copy, Debug)]
pub struct Multi<V, const G: usize>(pub [V; G]);

/// The mask of a [`Multi`] lane: one vector mask per vector.
#[derive(Clone, Copy, Debug)]
pub struct MultiMask<M, const G: usize>(pub [M; G]);

macro_rules! bin_op {
    ($ty:ident, $bound:ident, $tr:ident, $f:ident, $atr:ident, $af:ident) => {
        impl<V: $bound, const G: usize> $tr for $ty<V, G> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                $ty(core::array::from_fn(|i| self.0[i].$f(o.0[i])))
            }
        }
        impl<V: $bound, const G: usize> $atr for $ty<V, G> {
            #[inline(always)]
            fn $af(&mut self, o: Self) {
                *self = (*self).$f(o);
            }
        }
    };
}
bin_op!(Multi, Lane, Add, add, AddAssign, add_assign);
bin_op!(Multi, Lane, Sub, sub, SubAssign, sub_assign);
bin_op!(Multi, Lane, Mul, mul, MulAssign, mul_assign);
bin_op!(Multi, Lane, Div, div, DivAssign, div_assign);
bin_op!(MultiMask, Mask, BitAnd, bitand, BitAndAssign, bitand_assign);
bin_op!(MultiMask, Mask, BitOr, bitor, BitOrAssign, bitor_assign);

impl<M: Mask, const G: usize> BitXor for MultiMask<M, G> {
    type Output = Self;
    #[inline(always)]
    fn bitxor(self, o: Self) -> Self {
        MultiMask(core::array::from_fn(|i| self.0[i] ^ o.0[i]))
    }
}
impl<M: Mask, const G: usize> Not for MultiMask<M, G> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        MultiMask(self.0.map(|m| !m))
    }
}
impl<V: Lane, const G: usize> Neg for Multi<V, G> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Multi(self.0.map(|v| -v))
    }
}

impl<M: Mask, const G: usize> MultiMask<M, G> {
    #[inline(always)]
    fn width() -> usize {
        M::LANES
    }
}

impl<M: Mask, const G: usize> Mask for MultiMask<M, G> {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        MultiMask([M::splat(b); G])
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0.iter().fold(M::splat(false), |a, &m| a | m).any()
    }
    #[inline(always)]
    fn all(self) -> bool {
        self.0.iter().fold(M::splat(true), |a, &m| a & m).all()
    }
    #[inline(always)]
    fn test(self, i: usize) -> bool {
        let w = Self::width();
        self.0[i / w].test(i % w)
    }
    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> bool) -> Self {
        let w = Self::width();
        MultiMask(core::array::from_fn(|g| M::from_fn(|l| f(g * w + l))))
    }
    const LANES: usize = M::LANES * G;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        let mut bits = 0;
        for (g, m) in self.0.iter().enumerate() {
            bits |= m.to_bits() << (g * M::LANES);
        }
        bits
    }
}

impl<V: Lane, const G: usize> Lane for Multi<V, G> {
    type Elem = V::Elem;
    type Mask = MultiMask<V::Mask, G>;
    type Int = MultiInt<V::Int, G>;
    const WIDTH: usize = V::WIDTH * G;
    #[inline(always)]
    fn splat(v: V::Elem) -> Self {
        Multi([V::splat(v); G])
    }
    #[inline(always)]
    unsafe fn load(p: *const V::Elem) -> Self {
        // SAFETY: `p` is valid for `WIDTH = V::WIDTH * G` elements, so for `V::WIDTH` from
        // `g * V::WIDTH` on, `g < G`.
        Multi(core::array::from_fn(|g| unsafe {
            V::load(p.add(g * V::WIDTH))
        }))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut V::Elem) {
        for (g, v) in self.0.iter().enumerate() {
            // SAFETY: `p` is valid for `V::WIDTH * G` elements, so for `V::WIDTH` from
            // `g * V::WIDTH` on, `g < G`.
            unsafe { v.store(p.add(g * V::WIDTH)) }
        }
    }
    #[inline(always)]
    unsafe fn store_stream(self, p: *mut V::Elem) {
        for (g, v) in self.0.iter().enumerate() {
            // SAFETY: as in `store`; the caller runs the `sfence` the contract asks for.
            unsafe { v.store_stream(p.add(g * V::WIDTH)) }
        }
    }
    #[inline(always)]
    fn lane(self, i: usize) -> V::Elem {
        self.0[i / V::WIDTH].lane(i % V::WIDTH)
    }
    #[inline(always)]
    fn select(m: Self::Mask, a: Self, b: Self) -> Self {
        Multi(core::array::from_fn(|g| V::select(m.0[g], a.0[g], b.0[g])))
    }
    #[inline(always)]
    fn simd_ge(self, o: Self) -> Self::Mask {
        MultiMask(core::array::from_fn(|g| self.0[g].simd_ge(o.0[g])))
    }
    #[inline(always)]
    fn simd_gt(self, o: Self) -> Self::Mask {
        MultiMask(core::array::from_fn(|g| self.0[g].simd_gt(o.0[g])))
    }
    #[inline(always)]
    fn simd_le(self, o: Self) -> Self::Mask {
        MultiMask(core::array::from_fn(|g| self.0[g].simd_le(o.0[g])))
    }
    #[inline(always)]
    fn simd_lt(self, o: Self) -> Self::Mask {
        MultiMask(core::array::from_fn(|g| self.0[g].simd_lt(o.0[g])))
    }
    #[inline(always)]
    fn simd_eq(self, o: Self) -> Self::Mask {
        MultiMask(core::array::from_fn(|g| self.0[g].simd_eq(o.0[g])))
    }
    #[inline(always)]
    fn is_finite(self) -> Self::Mask {
        MultiMask(self.0.map(V::is_finite))
    }
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Multi(core::array::from_fn(|g| self.0[g].mul_add(a.0[g], b.0[g])))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // Not `map`: it was left out of line in the RK7(8) loops, and an out-of-line
        // copy is compiled without the caller's AVX2 (a call per square root).
        Multi(core::array::from_fn(|g| self.0[g].sqrt()))
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Multi(self.0.map(V::abs))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Multi(core::array::from_fn(|g| self.0[g].min(o.0[g])))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Multi(core::array::from_fn(|g| self.0[g].max(o.0[g])))
    }
    #[inline(always)]
    fn to_bits(self) -> Self::Int {
        MultiInt(core::array::from_fn(|g| self.0[g].to_bits()))
    }
    #[inline(always)]
    fn from_bits(i: Self::Int) -> Self {
        Multi(core::array::from_fn(|g| V::from_bits(i.0[g])))
    }
}
