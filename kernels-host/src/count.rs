//! Counting FLOPs from the kernel itself: a lane type that computes in `f64` and counts
//! every arithmetic operation, so "FLOPs per step" is never typed in by hand.
//!
//! Counted as one FLOP: `+ - * /`, `sqrt`, `recip`, `fract`, and each elementary function
//! of [`hawk::math`] (`sin`, `exp`, `powf`, `hypot`, ...: a transcendental counts once, as in
//! most FLOP tallies of ODE solvers, though it runs tens of operations; `sin_cos` counts
//! two); two: `mul_add`. Not counted: negation, comparisons, `select`, `abs`, `min`, `max`,
//! `floor`, `ceil`, `round`, `trunc`, `copysign`, `signum` and bit operations (sign,
//! compare and rounding operations). The value is the one the scalar lane computes.

use crate::HostReal;
use hawk::{Kernel, Lane, LaneArray, Real};
use std::cell::Cell;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

thread_local! {
    static FLOPS: Cell<u64> = const { Cell::new(0) };
}

fn tick(n: u64) {
    FLOPS.with(|c| c.set(c.get() + n));
}

/// A scalar lane (`f64` or `f32`) that counts the FLOPs done with it (on the current thread).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Counted<R>(pub R);

macro_rules! counted_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl<R: Real> $tr for Counted<R> {
            type Output = Counted<R>;
            fn $f(self, o: Counted<R>) -> Counted<R> {
                tick(1);
                Counted(self.0 $op o.0)
            }
        }
        impl<R: Real> $atr for Counted<R> {
            fn $af(&mut self, o: Counted<R>) {
                *self = *self $op o;
            }
        }
    };
}
counted_op!(Add, add, AddAssign, add_assign, +);
counted_op!(Sub, sub, SubAssign, sub_assign, -);
counted_op!(Mul, mul, MulAssign, mul_assign, *);
counted_op!(Div, div, DivAssign, div_assign, /);

impl<R: Real> Neg for Counted<R> {
    type Output = Counted<R>;
    fn neg(self) -> Counted<R> {
        Counted(-self.0)
    }
}

/// Overrides of the elementary functions: `$n` FLOPs each, the scalar lane's value.
macro_rules! counted_math {
    ($n:literal: $($f:ident),*) => {
        $(fn $f(self) -> Self {
            tick($n);
            Counted(Lane::$f(self.0))
        })*
    };
    ($n:literal binary: $($f:ident),*) => {
        $(fn $f(self, o: Self) -> Self {
            tick($n);
            Counted(Lane::$f(self.0, o.0))
        })*
    };
}

impl<R: HostReal> Lane for Counted<R> {
    type Elem = R;
    type Mask = bool;
    type Int = R::Int;
    const WIDTH: usize = 1;
    fn splat(v: R) -> Self {
        Counted(v)
    }
    unsafe fn load(p: *const R) -> Self {
        // SAFETY: `p` is valid for reading `WIDTH = 1` element.
        Counted(unsafe { *p })
    }
    unsafe fn store(self, p: *mut R) {
        // SAFETY: `p` is valid for writing `WIDTH = 1` element.
        unsafe { *p = self.0 }
    }
    fn lane(self, _i: usize) -> R {
        self.0
    }
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
    fn simd_ge(self, o: Self) -> bool {
        self.0 >= o.0
    }
    fn simd_gt(self, o: Self) -> bool {
        self.0 > o.0
    }
    fn simd_le(self, o: Self) -> bool {
        self.0 <= o.0
    }
    fn simd_lt(self, o: Self) -> bool {
        self.0 < o.0
    }
    fn simd_eq(self, o: Self) -> bool {
        self.0 == o.0
    }
    fn is_finite(self) -> bool {
        Lane::is_finite(self.0)
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        tick(2);
        Counted(Lane::mul_add(self.0, a.0, b.0))
    }
    fn sqrt(self) -> Self {
        tick(1);
        Counted(Lane::sqrt(self.0))
    }
    fn abs(self) -> Self {
        Counted(Lane::abs(self.0))
    }
    fn min(self, o: Self) -> Self {
        Counted(Lane::min(self.0, o.0))
    }
    fn max(self, o: Self) -> Self {
        Counted(Lane::max(self.0, o.0))
    }
    fn to_bits(self) -> R::Int {
        Lane::to_bits(self.0)
    }
    fn from_bits(i: R::Int) -> Self {
        Counted(Lane::from_bits(i))
    }
    counted_math!(1: sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, exp, exp2, exp_m1, ln,
        log2, log10, ln_1p, cbrt, recip, fract);
    counted_math!(0: floor, ceil, round, trunc, signum);
    counted_math!(1 binary: atan2, powf, hypot);
    counted_math!(0 binary: copysign);
    fn sin_cos(self) -> (Self, Self) {
        tick(2);
        let (s, c) = Lane::sin_cos(self.0);
        (Counted(s), Counted(c))
    }
    fn powi(self, n: i32) -> Self {
        tick(1);
        Counted(Lane::powi(self.0, n))
    }
}

/// FLOPs one step of kernel `K` does for one sample, counted by running the step once with
/// [`Counted`] lanes on the given plane values (inputs, params, mutables, in role order).
///
/// Kernels branch only through masks, so the count does not depend on the values unless
/// the kernel itself loops a data-dependent number of times.
pub fn flops_per_step<K: Kernel>(ins: &[K::Real], params: &[K::Real], muts: &[K::Real]) -> u64
where
    K::Real: HostReal,
{
    let at = |v: &[K::Real], j: usize| v.get(j).copied().unwrap_or(K::Real::from_f64(1.0));
    let i = K::Ins::<Counted<K::Real>>::from_fn(|j| Counted(at(ins, j)));
    let p = K::Params::<Counted<K::Real>>::from_fn(|j| Counted(at(params, j)));
    let mut m = K::Muts::<Counted<K::Real>>::from_fn(|j| Counted(at(muts, j)));
    let mut done = false;
    let before = FLOPS.with(Cell::get);
    K::step(&i, &p, &mut m, &mut done);
    FLOPS.with(Cell::get) - before
}
