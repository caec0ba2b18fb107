//! The `core::simd` lanes: `Simd<f64, N>` and `Simd<f32, N>` (the host's vector lanes) and
//! their masks.

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
    ($t:ident, $i:ty, $m128:ident, $stream:ident) => {
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
                // SAFETY: `p` is valid for reading `N` elements, one `[T; N]`; the read is
                // unaligned, so `p` needs no particular alignment.
                unsafe { Simd::from_array(core::ptr::read_unaligned(p as *const [$t; N])) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: `p` is valid for writing `N` elements; the write is unaligned.
                unsafe { core::ptr::write_unaligned(p as *mut [$t; N], self.to_array()) }
            }
            #[inline(always)]
            unsafe fn store_stream(self, p: *mut $t) {
                // SSE's 16-byte streaming store: baseline on x86-64, so callable from every
                // ISA variant of the chunk loop (`core::intrinsics::nontemporal_store` is a
                // plain store on x86). Write-combining joins a line's four into one write.
                #[cfg(target_arch = "x86_64")]
                {
                    const C: usize = 16 / core::mem::size_of::<$t>();
                    if N % C == 0 && (p as usize) % 16 == 0 {
                        let a = self.to_array();
                        let mut c = 0;
                        while c < N {
                            let v: core::arch::x86_64::$m128 =
                                Simd::<$t, C>::from_slice(&a[c..c + C]).into();
                            // SAFETY: `c + C <= N`, so the 16 bytes at `p + c` are inside
                            // the `N` elements `p` is valid for, and 16-byte aligned (`p`
                            // is, and `c` elements are a multiple of 16 bytes); SSE/SSE2
                            // are baseline on x86-64.
                            unsafe { core::arch::x86_64::$stream(p.add(c), v) };
                            c += C;
                        }
                        return;
                    }
                }
                // SAFETY: `p` is valid for writing `N` elements (the contract).
                unsafe { self.store(p) }
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
            // One vector intrinsic (LLVM's `fma`/`sqrt` on the whole vector: `vfmadd` and
            // `vsqrtp*` in the caller's instruction set), never a per-lane closure: a
            // closure LLVM declines to inline runs outside the ISA-specific chunk loop,
            // where each lane's fma is a library call (Lorenz RK4 at 32 lanes ran 40x
            // slower). Both are correctly rounded, so the bits are the scalar lane's.
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                // SAFETY: `simd_fma` on a float vector type, all three of the same type.
                unsafe { core::intrinsics::simd::simd_fma(self, a, b) }
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                // SAFETY: `simd_fsqrt` on a float vector type.
                unsafe { core::intrinsics::simd::simd_fsqrt(self) }
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
simd_lane!(f64, i64, __m128d, _mm_stream_pd);
simd_lane!(f32, i32, __m128, _mm_stream_ps);
