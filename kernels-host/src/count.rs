//! Counting FLOPs from the kernel itself: a lane type that computes in `f64` and counts
//! every arithmetic operation, so "FLOPs per step" is never typed in by hand.
//!
//! Counted as one FLOP: `+ - * /`, `sqrt`, `exp`, `ln`, `powf` (a transcendental counts
//! once, as in most FLOP tallies of ODE solvers); two: `mul_add`. Not counted: negation,
//! comparisons, `select`, `abs`, `min`, `max` (sign and compare operations).

use hawk::{Kernel, Lane, LaneArray};
use std::cell::Cell;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

thread_local! {
    static FLOPS: Cell<u64> = const { Cell::new(0) };
}

fn tick(n: u64) {
    FLOPS.with(|c| c.set(c.get() + n));
}

/// An `f64` lane that counts the FLOPs done with it (on the current thread).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Counted(pub f64);

macro_rules! counted_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Counted {
            type Output = Counted;
            fn $f(self, o: Counted) -> Counted {
                tick(1);
                Counted(self.0 $op o.0)
            }
        }
        impl $atr for Counted {
            fn $af(&mut self, o: Counted) {
                *self = *self $op o;
            }
        }
    };
}
counted_op!(Add, add, AddAssign, add_assign, +);
counted_op!(Sub, sub, SubAssign, sub_assign, -);
counted_op!(Mul, mul, MulAssign, mul_assign, *);
counted_op!(Div, div, DivAssign, div_assign, /);

impl Neg for Counted {
    type Output = Counted;
    fn neg(self) -> Counted {
        Counted(-self.0)
    }
}

impl Lane for Counted {
    type Elem = f64;
    type Mask = bool;
    const WIDTH: usize = 1;
    fn splat(v: f64) -> Self {
        Counted(v)
    }
    unsafe fn load(p: *const f64) -> Self {
        Counted(unsafe { *p })
    }
    unsafe fn store(self, p: *mut f64) {
        unsafe { *p = self.0 }
    }
    fn lane(self, _i: usize) -> f64 {
        self.0
    }
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
    fn ge(self, o: Self) -> bool {
        self.0 >= o.0
    }
    fn gt(self, o: Self) -> bool {
        self.0 > o.0
    }
    fn le(self, o: Self) -> bool {
        self.0 <= o.0
    }
    fn lt(self, o: Self) -> bool {
        self.0 < o.0
    }
    fn eq(self, o: Self) -> bool {
        self.0 == o.0
    }
    fn is_finite(self) -> bool {
        self.0.is_finite()
    }
    fn mul_add(self, a: Self, b: Self) -> Self {
        tick(2);
        Counted(self.0.mul_add(a.0, b.0))
    }
    fn sqrt(self) -> Self {
        tick(1);
        Counted(self.0.sqrt())
    }
    fn abs(self) -> Self {
        Counted(self.0.abs())
    }
    fn min(self, o: Self) -> Self {
        Counted(self.0.min(o.0))
    }
    fn max(self, o: Self) -> Self {
        Counted(self.0.max(o.0))
    }
    fn exp(self) -> Self {
        tick(1);
        Counted(self.0.exp())
    }
    fn ln(self) -> Self {
        tick(1);
        Counted(self.0.ln())
    }
    fn powf(self, e: Self) -> Self {
        tick(1);
        Counted(self.0.powf(e.0))
    }
}

/// FLOPs one step of kernel `K` does for one sample, counted by running the step once with
/// [`Counted`] lanes on the given plane values (inputs, params, mutables, in role order).
///
/// Kernels branch only through masks, so the count does not depend on the values unless
/// the kernel itself loops a data-dependent number of times.
pub fn flops_per_step<K: Kernel<Real = f64>>(ins: &[f64], params: &[f64], muts: &[f64]) -> u64 {
    let at = |v: &[f64], j: usize| v.get(j).copied().unwrap_or(1.0);
    let i = K::Ins::<Counted>::from_fn(|j| Counted(at(ins, j)));
    let p = K::Params::<Counted>::from_fn(|j| Counted(at(params, j)));
    let mut m = K::Muts::<Counted>::from_fn(|j| Counted(at(muts, j)));
    let mut done = false;
    let before = FLOPS.with(Cell::get);
    K::step(&i, &p, &mut m, &mut done);
    FLOPS.with(Cell::get) - before
}
