//! Integer companions of the lane types: what the range reductions of [`crate::math`] do
//! with a float's bits (exponent extraction, building `2^k`, quadrant numbers, sign bits).
//!
//! Every lane type has one ([`crate::Lane::Int`]): `i64`/`i32` for the scalar lanes,
//! `Simd<i64, N>`/`Simd<i32, N>` for SIMD lanes, [`MultiInt`] for [`crate::lane::Multi`].
//! Arithmetic wraps (two's complement) on every type, so every lane gives the same bits.

use crate::lane::Mask;
use core::fmt::Debug;

/// Per-lane signed integers of the width of the lane's floats, sharing the lane's mask type.
pub trait IntLane: Copy + Send + Sync + Debug {
    /// The per-lane boolean type (the float lane's).
    type Mask: Mask;
    /// Every lane set to `v` (truncated to the lane's width).
    fn splat(v: i64) -> Self;
    /// Per lane wrapping `self + o`.
    fn add(self, o: Self) -> Self;
    /// Per lane wrapping `self - o`.
    fn sub(self, o: Self) -> Self;
    /// Per lane bitwise and.
    fn and(self, o: Self) -> Self;
    /// Per lane bitwise or.
    fn or(self, o: Self) -> Self;
    /// Per lane bitwise exclusive or.
    fn xor(self, o: Self) -> Self;
    /// Per lane: the low 32 bits as an unsigned word times `m`, the 64-bit product as its
    /// high and low words `(hi, lo)`, each an unsigned 32-bit word in the low bits of the
    /// lane (zero-extended on 64-bit lanes). Counter-based random numbers
    /// ([`crate::random`]) are built on it.
    fn mul_wide(self, m: u32) -> (Self, Self);
    /// Per lane shift left by `n` bits (`n` below the lane's width).
    fn shl(self, n: u32) -> Self;
    /// Per lane arithmetic shift right by `n` bits (`n` below the lane's width).
    fn shr(self, n: u32) -> Self;
    /// Per lane logical shift right by `n` bits (`n` below the lane's width); unlike
    /// [`IntLane::shr`] on 64-bit lanes, one instruction on AVX2.
    fn lshr(self, n: u32) -> Self;
    /// Per lane `self == o`.
    fn simd_eq(self, o: Self) -> Self::Mask;
    /// Per lane `self < o` (signed).
    fn simd_lt(self, o: Self) -> Self::Mask;
    /// Per lane: `a` where `m` is set, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
}

macro_rules! scalar_int {
    ($t:ty) => {
        impl IntLane for $t {
            type Mask = bool;
            #[inline(always)]
            fn splat(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                self & o
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                self | o
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            #[inline(always)]
            fn mul_wide(self, m: u32) -> (Self, Self) {
                let p = u64::from(self as u32) * u64::from(m);
                ((p >> 32) as u32 as $t, p as u32 as $t)
            }
            #[inline(always)]
            fn shl(self, n: u32) -> Self {
                self.wrapping_shl(n)
            }
            #[inline(always)]
            fn shr(self, n: u32) -> Self {
                self.wrapping_shr(n)
            }
            #[inline(always)]
            fn lshr(self, n: u32) -> Self {
                self.cast_unsigned().wrapping_shr(n).cast_signed()
            }
            #[inline(always)]
            fn simd_eq(self, o: Self) -> bool {
                self == o
            }
            #[inline(always)]
            fn simd_lt(self, o: Self) -> bool {
                self < o
            }
            #[inline(always)]
            fn select(m: bool, a: Self, b: Self) -> Self {
                if m { a } else { b }
            }
        }
    };
}
scalar_int!(i64);
scalar_int!(i32);

#[cfg(not(target_arch = "nvptx64"))]
mod simd_ints {
    use super::IntLane;
    use core::simd::Simd;
    use core::simd::cmp::{SimdPartialEq, SimdPartialOrd};
    use core::simd::num::{SimdInt, SimdUint};

    macro_rules! simd_int {
        ($t:ty, $u:ty) => {
            impl<const N: usize> IntLane for Simd<$t, N> {
                type Mask = core::simd::Mask<$t, N>;
                #[inline(always)]
                fn splat(v: i64) -> Self {
                    Simd::splat(v as $t)
                }
                #[inline(always)]
                fn add(self, o: Self) -> Self {
                    self + o
                }
                #[inline(always)]
                fn sub(self, o: Self) -> Self {
                    self - o
                }
                #[inline(always)]
                fn and(self, o: Self) -> Self {
                    self & o
                }
                #[inline(always)]
                fn or(self, o: Self) -> Self {
                    self | o
                }
                #[inline(always)]
                fn xor(self, o: Self) -> Self {
                    self ^ o
                }
                #[inline(always)]
                fn mul_wide(self, m: u32) -> (Self, Self) {
                    // The low words widened to 64 bits: one 32 x 32 -> 64 multiply per lane
                    // (`vpmuludq` on x86-64).
                    let low = Simd::<u64, N>::splat(0xffff_ffff);
                    let a = self.cast::<$u>().cast::<u64>() & low;
                    let p = a * Simd::splat(u64::from(m));
                    (
                        (p >> Simd::splat(32)).cast::<$u>().cast::<$t>(),
                        (p & low).cast::<$u>().cast::<$t>(),
                    )
                }
                #[inline(always)]
                fn shl(self, n: u32) -> Self {
                    self << Simd::splat(n as $t)
                }
                #[inline(always)]
                fn shr(self, n: u32) -> Self {
                    self >> Simd::splat(n as $t)
                }
                #[inline(always)]
                fn lshr(self, n: u32) -> Self {
                    (self.cast::<$u>() >> Simd::splat(n as $u)).cast::<$t>()
                }
                #[inline(always)]
                fn simd_eq(self, o: Self) -> Self::Mask {
                    SimdPartialEq::simd_eq(self, o)
                }
                #[inline(always)]
                fn simd_lt(self, o: Self) -> Self::Mask {
                    SimdPartialOrd::simd_lt(self, o)
                }
                #[inline(always)]
                fn select(m: Self::Mask, a: Self, b: Self) -> Self {
                    core::simd::Select::select(m, a, b)
                }
            }
        };
    }
    simd_int!(i64, u64);
    simd_int!(i32, u32);
}

/// The integer companion of a [`crate::lane::Multi`] lane: one integer vector per vector.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug)]
pub struct MultiInt<I, const G: usize>(pub [I; G]);

#[cfg(not(target_arch = "nvptx64"))]
impl<I: IntLane, const G: usize> IntLane for MultiInt<I, G> {
    type Mask = crate::lane::MultiMask<I::Mask, G>;
    #[inline(always)]
    fn splat(v: i64) -> Self {
        MultiInt([I::splat(v); G])
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].add(o.0[g])))
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].sub(o.0[g])))
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].and(o.0[g])))
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].or(o.0[g])))
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].xor(o.0[g])))
    }
    #[inline(always)]
    fn mul_wide(self, m: u32) -> (Self, Self) {
        let p: [(I, I); G] = core::array::from_fn(|g| self.0[g].mul_wide(m));
        (
            MultiInt(core::array::from_fn(|g| p[g].0)),
            MultiInt(core::array::from_fn(|g| p[g].1)),
        )
    }
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].shl(n)))
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].shr(n)))
    }
    #[inline(always)]
    fn lshr(self, n: u32) -> Self {
        MultiInt(core::array::from_fn(|g| self.0[g].lshr(n)))
    }
    #[inline(always)]
    fn simd_eq(self, o: Self) -> Self::Mask {
        crate::lane::MultiMask(core::array::from_fn(|g| self.0[g].simd_eq(o.0[g])))
    }
    #[inline(always)]
    fn simd_lt(self, o: Self) -> Self::Mask {
        crate::lane::MultiMask(core::array::from_fn(|g| self.0[g].simd_lt(o.0[g])))
    }
    #[inline(always)]
    fn select(m: Self::Mask, a: Self, b: Self) -> Self {
        MultiInt(core::array::from_fn(|g| I::select(m.0[g], a.0[g], b.0[g])))
    }
}
