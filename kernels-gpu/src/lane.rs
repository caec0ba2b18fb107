//! Lane types: what a kernel body computes with.
//!
//! A kernel body is generic over one [`Lane`] type. On the GPU the lane is a plain `f64` or
//! `f32` (one thread per sample); on the host it is a `core::simd` vector holding several
//! samples at once. Per-sample decisions are [`Mask`]s and [`Lane::select`], never an `if` on
//! a sample's value, so every lane type gives the same bits.

use crate::bits::IntLane;
use core::fmt::Debug;
use core::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Div, DivAssign, Mul,
    MulAssign, Neg, Not, Sub, SubAssign,
};

/// An element type a plane can hold: `f64` or `f32`.
pub trait Real:
    Copy
    + Send
    + Sync
    + Default
    + Debug
    + PartialOrd
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + crate::math::Consts
    + crate::math::Format
{
    /// The element's name as a kernel author writes it (`"f64"`).
    const NAME: &'static str;
    /// Bytes per element.
    const BYTES: usize;
    /// Converts from `f64` (rounding for `f32`).
    fn from_f64(v: f64) -> Self;
    /// Widens to `f64`.
    fn to_f64(self) -> f64;
    /// `true` when neither NaN nor infinite.
    fn finite(self) -> bool;
}

macro_rules! real_impl {
    ($t:ty) => {
        impl Real for $t {
            const NAME: &'static str = stringify!($t);
            const BYTES: usize = core::mem::size_of::<$t>();
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn finite(self) -> bool {
                self.is_finite()
            }
        }
    };
}
real_impl!(f64);
real_impl!(f32);

/// A per-lane boolean: `bool` for a scalar lane, a SIMD mask for a vector lane.
pub trait Mask:
    Copy
    + Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
{
    /// Every lane set to `b`.
    fn splat(b: bool) -> Self;
    /// `true` if any lane is set.
    fn any(self) -> bool;
    /// `true` if every lane is set.
    fn all(self) -> bool;
    /// Lane `i`'s value.
    fn test(self, i: usize) -> bool;
    /// Builds a mask lane by lane.
    fn from_fn(f: impl FnMut(usize) -> bool) -> Self;
    /// Lanes in the mask.
    const LANES: usize;
    /// The mask as bits, lane `i` in bit `i` (at most 64 lanes).
    fn to_bits(self) -> u64;
}

impl Mask for bool {
    #[inline(always)]
    fn splat(b: bool) -> Self {
        b
    }
    #[inline(always)]
    fn any(self) -> bool {
        self
    }
    #[inline(always)]
    fn all(self) -> bool {
        self
    }
    #[inline(always)]
    fn test(self, _i: usize) -> bool {
        self
    }
    #[inline(always)]
    fn from_fn(mut f: impl FnMut(usize) -> bool) -> Self {
        f(0)
    }
    const LANES: usize = 1;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

/// What a kernel body computes with: `WIDTH` samples' values of one plane.
///
/// Arithmetic is IEEE per lane and never fused behind the author's back, so a scalar lane
/// and a vector lane give bit-identical results.
pub trait Lane:
    Copy
    + Send
    + Sync
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// The element type (`f64` or `f32`).
    type Elem: Real;
    /// The per-lane boolean type.
    type Mask: Mask;
    /// Samples per lane value.
    const WIDTH: usize;
    /// Every lane set to `v`.
    fn splat(v: Self::Elem) -> Self;
    /// Reads `WIDTH` consecutive elements.
    ///
    /// # Safety
    /// `p` must be valid for reading `WIDTH` elements.
    unsafe fn load(p: *const Self::Elem) -> Self;
    /// Writes `WIDTH` consecutive elements.
    ///
    /// # Safety
    /// `p` must be valid for writing `WIDTH` elements.
    unsafe fn store(self, p: *mut Self::Elem);
    /// Lane `i`'s value.
    fn lane(self, i: usize) -> Self::Elem;
    /// Per lane: `a` where `m` is set, else `b` (numpy's `where`).
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Per lane `self >= o`.
    fn simd_ge(self, o: Self) -> Self::Mask;
    /// Per lane `self > o`.
    fn simd_gt(self, o: Self) -> Self::Mask;
    /// Per lane `self <= o`.
    fn simd_le(self, o: Self) -> Self::Mask;
    /// Per lane `self < o`.
    fn simd_lt(self, o: Self) -> Self::Mask;
    /// Per lane `self == o`.
    fn simd_eq(self, o: Self) -> Self::Mask;
    /// Per lane: neither NaN nor infinite.
    fn is_finite(self) -> Self::Mask;
    /// Per lane fused `self * a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Per lane square root, correctly rounded.
    fn sqrt(self) -> Self;
    /// Per lane absolute value.
    fn abs(self) -> Self;
    /// Per lane minimum (IEEE minNum: a NaN operand yields the other).
    fn min(self, o: Self) -> Self;
    /// Per lane maximum (IEEE maxNum).
    fn max(self, o: Self) -> Self;
    /// The integer companion (same width as the elements), for bit-level range reductions.
    type Int: IntLane<Mask = Self::Mask>;
    /// Per lane: the element's bits as a signed integer (`f64::to_bits`, reinterpreted).
    fn to_bits(self) -> Self::Int;
    /// Per lane: the element whose bits are `i` (`f64::from_bits`).
    fn from_bits(i: Self::Int) -> Self;

    crate::math::lane_methods!();
}

macro_rules! scalar_lane {
    ($t:ident, $i:ident) => {
        impl Lane for $t {
            type Elem = $t;
            type Mask = bool;
            type Int = $i;
            const WIDTH: usize = 1;
            #[inline(always)]
            fn splat(v: $t) -> Self {
                v
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                unsafe { *p }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                unsafe { *p = self }
            }
            #[inline(always)]
            fn lane(self, _i: usize) -> $t {
                self
            }
            #[inline(always)]
            fn select(m: bool, a: Self, b: Self) -> Self {
                if m { a } else { b }
            }
            #[inline(always)]
            fn simd_ge(self, o: Self) -> bool {
                self >= o
            }
            #[inline(always)]
            fn simd_gt(self, o: Self) -> bool {
                self > o
            }
            #[inline(always)]
            fn simd_le(self, o: Self) -> bool {
                self <= o
            }
            #[inline(always)]
            fn simd_lt(self, o: Self) -> bool {
                self < o
            }
            #[inline(always)]
            fn simd_eq(self, o: Self) -> bool {
                self == o
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                core::$t::math::mul_add(self, a, b)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                core::$t::math::sqrt(self)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline(always)]
            fn min(self, o: Self) -> Self {
                $t::min(self, o)
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                $t::max(self, o)
            }
            #[inline(always)]
            fn to_bits(self) -> $i {
                $t::to_bits(self) as $i
            }
            #[inline(always)]
            fn from_bits(i: $i) -> Self {
                $t::from_bits(i as _)
            }
        }
    };
}
scalar_lane!(f64, i64);
scalar_lane!(f32, i32);

/// A fixed-size group of lane values: one per plane of a role.
pub trait LaneArray<L: Lane>: Copy + Send + Sync {
    /// Number of planes.
    const LEN: usize;
    /// Builds the group plane by plane.
    fn from_fn(f: impl FnMut(usize) -> L) -> Self;
    /// The values as a slice.
    fn as_slice(&self) -> &[L];
    /// The values as a mutable slice.
    fn as_mut_slice(&mut self) -> &mut [L];
}

impl<L: Lane, const N: usize> LaneArray<L> for [L; N] {
    const LEN: usize = N;
    #[inline(always)]
    fn from_fn(f: impl FnMut(usize) -> L) -> Self {
        core::array::from_fn(f)
    }
    #[inline(always)]
    fn as_slice(&self) -> &[L] {
        self
    }
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [L] {
        self
    }
}

#[cfg(not(target_arch = "nvptx64"))]
mod simd_lanes {
    use super::{Lane, Mask};
    use core::simd::Simd;
    use core::simd::cmp::{SimdPartialEq, SimdPartialOrd};
    use core::simd::num::{SimdFloat, SimdInt, SimdUint};

    macro_rules! simd_mask {
        ($i:ty) => {
            impl<const N: usize> Mask for core::simd::Mask<$i, N> {
                #[inline(always)]
                fn splat(b: bool) -> Self {
                    core::simd::Mask::splat(b)
                }
                #[inline(always)]
                fn any(self) -> bool {
                    core::simd::Mask::any(self)
                }
                #[inline(always)]
                fn all(self) -> bool {
                    core::simd::Mask::all(self)
                }
                #[inline(always)]
                fn test(self, i: usize) -> bool {
                    core::simd::Mask::test(&self, i)
                }
                #[inline(always)]
                fn from_fn(f: impl FnMut(usize) -> bool) -> Self {
                    core::simd::Mask::from_array(core::array::from_fn(f))
                }
                const LANES: usize = N;
                #[inline(always)]
                fn to_bits(self) -> u64 {
                    self.to_bitmask()
                }
            }
        };
    }
    simd_mask!(i64);
    simd_mask!(i32);

    macro_rules! simd_lane {
        ($t:ident, $i:ty) => {
            impl<const N: usize> Lane for Simd<$t, N> {
                type Elem = $t;
                type Mask = core::simd::Mask<$i, N>;
                type Int = Simd<$i, N>;
                const WIDTH: usize = N;
                #[inline(always)]
                fn splat(v: $t) -> Self {
                    Simd::splat(v)
                }
                #[inline(always)]
                unsafe fn load(p: *const $t) -> Self {
                    unsafe { Simd::from_array(core::ptr::read_unaligned(p as *const [$t; N])) }
                }
                #[inline(always)]
                unsafe fn store(self, p: *mut $t) {
                    unsafe { core::ptr::write_unaligned(p as *mut [$t; N], self.to_array()) }
                }
                #[inline(always)]
                fn lane(self, i: usize) -> $t {
                    self[i]
                }
                #[inline(always)]
                fn select(m: Self::Mask, a: Self, b: Self) -> Self {
                    core::simd::Select::select(m, a, b)
                }
                #[inline(always)]
                fn simd_ge(self, o: Self) -> Self::Mask {
                    SimdPartialOrd::simd_ge(self, o)
                }
                #[inline(always)]
                fn simd_gt(self, o: Self) -> Self::Mask {
                    SimdPartialOrd::simd_gt(self, o)
                }
                #[inline(always)]
                fn simd_le(self, o: Self) -> Self::Mask {
                    SimdPartialOrd::simd_le(self, o)
                }
                #[inline(always)]
                fn simd_lt(self, o: Self) -> Self::Mask {
                    SimdPartialOrd::simd_lt(self, o)
                }
                #[inline(always)]
                fn simd_eq(self, o: Self) -> Self::Mask {
                    SimdPartialEq::simd_eq(self, o)
                }
                #[inline(always)]
                fn is_finite(self) -> Self::Mask {
                    SimdFloat::is_finite(self)
                }
                #[inline(always)]
                fn mul_add(self, a: Self, b: Self) -> Self {
                    let (s, a, b) = (self.to_array(), a.to_array(), b.to_array());
                    Simd::from_array(core::array::from_fn(|i| {
                        core::$t::math::mul_add(s[i], a[i], b[i])
                    }))
                }
                #[inline(always)]
                fn sqrt(self) -> Self {
                    let s = self.to_array();
                    Simd::from_array(core::array::from_fn(|i| core::$t::math::sqrt(s[i])))
                }
                #[inline(always)]
                fn abs(self) -> Self {
                    SimdFloat::abs(self)
                }
                #[inline(always)]
                fn min(self, o: Self) -> Self {
                    self.simd_min(o)
                }
                #[inline(always)]
                fn max(self, o: Self) -> Self {
                    self.simd_max(o)
                }
                #[inline(always)]
                fn to_bits(self) -> Simd<$i, N> {
                    SimdFloat::to_bits(self).cast::<$i>()
                }
                #[inline(always)]
                fn from_bits(i: Simd<$i, N>) -> Self {
                    SimdFloat::from_bits(i.cast())
                }
            }
        };
    }
    simd_lane!(f64, i64);
    simd_lane!(f32, i32);
}

/// `G` SIMD vectors used as one lane group of `G * V::WIDTH` samples.
///
/// Unlike one long `Simd`, a mask reduction (`any`, `all`) first combines the `G` vector
/// masks with one OR/AND each and then tests a single vector, and widths that are not a
/// power of two (three AVX2 vectors: 12 `f64` lanes) compile to plain vector code. Several
/// independent vectors in flight hide the latency of a step's dependency chain.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug)]
pub struct Multi<V, const G: usize>(pub [V; G]);

/// The mask of a [`Multi`] lane: one vector mask per vector.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug)]
pub struct MultiMask<M, const G: usize>(pub [M; G]);

#[cfg(not(target_arch = "nvptx64"))]
mod multi {
    use super::{Lane, Mask, Multi, MultiMask};
    use crate::bits::MultiInt;
    use core::ops::*;

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
            Multi(core::array::from_fn(|g| unsafe {
                V::load(p.add(g * V::WIDTH))
            }))
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut V::Elem) {
            for (g, v) in self.0.iter().enumerate() {
                unsafe { v.store(p.add(g * V::WIDTH)) }
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
}
