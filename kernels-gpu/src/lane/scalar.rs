//! The scalar lanes: `f64` and `f32` as one-sample lanes (the GPU's, one thread per
//! sample), `bool` as their mask, and the two element types as [`Real`].

use super::{Lane, Mask, Real};

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
                // SAFETY: `p` is valid for reading `WIDTH = 1` element.
                unsafe { *p }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: `p` is valid for writing `WIDTH = 1` element.
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
