//! [`Dual`] as a [`Lane`]: arithmetic with the sum, product and quotient rules, selects and
//! comparisons on the values, loads and stores of the values (a loaded value is a
//! constant).

use super::Dual;
use crate::lane::{Lane, Real};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

impl<L: Lane, const D: usize> Add for Dual<L, D> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Dual {
            v: self.v + o.v,
            d: core::array::from_fn(|k| self.d[k] + o.d[k]),
        }
    }
}

impl<L: Lane, const D: usize> Sub for Dual<L, D> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Dual {
            v: self.v - o.v,
            d: core::array::from_fn(|k| self.d[k] - o.d[k]),
        }
    }
}

impl<L: Lane, const D: usize> Mul for Dual<L, D> {
    type Output = Self;
    /// `(a b)' = a' b + a b'`.
    #[inline(always)]
    #[allow(clippy::suspicious_arithmetic_impl)] // the product rule
    fn mul(self, o: Self) -> Self {
        Dual {
            v: self.v * o.v,
            d: core::array::from_fn(|k| self.d[k] * o.v + self.v * o.d[k]),
        }
    }
}

impl<L: Lane, const D: usize> Div for Dual<L, D> {
    type Output = Self;
    /// `(a / b)' = (a' - (a / b) b') / b`.
    #[inline(always)]
    #[allow(clippy::suspicious_arithmetic_impl)] // the quotient rule
    fn div(self, o: Self) -> Self {
        let q = self.v / o.v;
        Dual {
            v: q,
            d: core::array::from_fn(|k| (self.d[k] - q * o.d[k]) / o.v),
        }
    }
}

impl<L: Lane, const D: usize> Neg for Dual<L, D> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Dual {
            v: -self.v,
            d: self.d.map(|d| -d),
        }
    }
}

macro_rules! assign {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<L: Lane, const D: usize> $tr for Dual<L, D> {
            #[inline(always)]
            fn $f(&mut self, o: Self) {
                *self = *self $op o;
            }
        }
    };
}
assign!(AddAssign, add_assign, +);
assign!(SubAssign, sub_assign, -);
assign!(MulAssign, mul_assign, *);
assign!(DivAssign, div_assign, /);

impl<L: Lane, const D: usize> Lane for Dual<L, D> {
    type Elem = L::Elem;
    type Mask = L::Mask;
    type Int = L::Int;
    const WIDTH: usize = L::WIDTH;

    #[inline(always)]
    fn splat(v: Self::Elem) -> Self {
        Dual::constant(L::splat(v))
    }
    /// Loads the values as a constant.
    #[inline(always)]
    unsafe fn load(p: *const Self::Elem) -> Self {
        // SAFETY: `p` is valid for reading `WIDTH` elements (this method's contract, which
        // is `L::load`'s: the widths are equal).
        Dual::constant(unsafe { L::load(p) })
    }
    /// Stores the values (the derivatives are dropped).
    #[inline(always)]
    unsafe fn store(self, p: *mut Self::Elem) {
        // SAFETY: `p` is valid for writing `WIDTH` elements (as `load`).
        unsafe { self.v.store(p) }
    }
    #[inline(always)]
    fn lane(self, i: usize) -> Self::Elem {
        self.v.lane(i)
    }
    #[inline(always)]
    fn select(m: Self::Mask, a: Self, b: Self) -> Self {
        Dual {
            v: L::select(m, a.v, b.v),
            d: core::array::from_fn(|k| L::select(m, a.d[k], b.d[k])),
        }
    }
    #[inline(always)]
    fn simd_ge(self, o: Self) -> Self::Mask {
        self.v.simd_ge(o.v)
    }
    #[inline(always)]
    fn simd_gt(self, o: Self) -> Self::Mask {
        self.v.simd_gt(o.v)
    }
    #[inline(always)]
    fn simd_le(self, o: Self) -> Self::Mask {
        self.v.simd_le(o.v)
    }
    #[inline(always)]
    fn simd_lt(self, o: Self) -> Self::Mask {
        self.v.simd_lt(o.v)
    }
    #[inline(always)]
    fn simd_eq(self, o: Self) -> Self::Mask {
        self.v.simd_eq(o.v)
    }
    /// The value's finiteness (the derivatives are not looked at).
    #[inline(always)]
    fn is_finite(self) -> Self::Mask {
        self.v.is_finite()
    }
    /// `(a b + c)' = a' b + a b' + c'`, each derivative with two fused operations.
    #[inline(always)]
    fn mul_add(self, a: Self, b: Self) -> Self {
        Dual {
            v: self.v.mul_add(a.v, b.v),
            d: core::array::from_fn(|k| self.d[k].mul_add(a.v, self.v.mul_add(a.d[k], b.d[k]))),
        }
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        let r = self.v.sqrt();
        let half = L::splat(<L::Elem as Real>::from_f64(0.5));
        self.chain(r, half / r)
    }
    /// `|x|' = -x'` where `x < 0`, else `x'`.
    #[inline(always)]
    fn abs(self) -> Self {
        let neg = self.v.simd_lt(L::splat(<L::Elem as Real>::from_f64(0.0)));
        Dual {
            v: self.v.abs(),
            d: self.d.map(|d| L::select(neg, -d, d)),
        }
    }
    /// IEEE minNum on the values; the derivatives of the operand chosen (the first where
    /// the values are equal).
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        let first = self.v.simd_le(o.v) | !o.v.simd_eq(o.v);
        Dual {
            v: self.v.min(o.v),
            d: core::array::from_fn(|k| L::select(first, self.d[k], o.d[k])),
        }
    }
    /// IEEE maxNum on the values; the derivatives of the operand chosen.
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        let first = self.v.simd_ge(o.v) | !o.v.simd_eq(o.v);
        Dual {
            v: self.v.max(o.v),
            d: core::array::from_fn(|k| L::select(first, self.d[k], o.d[k])),
        }
    }
    /// The value's bits.
    #[inline(always)]
    fn to_bits(self) -> Self::Int {
        self.v.to_bits()
    }
    /// A constant from bits.
    #[inline(always)]
    fn from_bits(i: Self::Int) -> Self {
        Dual::constant(L::from_bits(i))
    }

    super::rules::dual_math_methods!();
}
