//! A kernel that calls every elementary function of [`crate::math`] once per step, in `f64`
//! and `f32`, so the PTX test assembles all of them for the GPU (no spills allowed). `x`
//! should lie in (0, 1).
#![allow(missing_docs)]

use crate::prelude::*;

/// One step: six sums of elementary functions of `x`, then done.
#[kernel(steps = "auto")]
pub fn elementary(
    x: Scalar,
    terminated: &mut Terminated,
    trig: &mut Scalar,
    inverse: &mut Scalar,
    hyper: &mut Scalar,
    exp_log: &mut Scalar,
    pow: &mut Scalar,
    round: &mut Scalar,
) {
    let s = |v: f64| Scalar::splat(Real::from_f64(v));
    let (sn, cs) = (x * s(1e6)).sin_cos();
    *trig = (x * s(100.0)).sin() + (x * s(3e9)).cos() + x.tan() + sn * cs;
    *inverse = x.asin() + x.acos() + (x * s(10.0)).atan() + x.atan2(x - s(0.5));
    *hyper = (x * s(5.0)).sinh() + (x * s(5.0)).cosh() + (x * s(3.0)).tanh();
    *exp_log = (x * s(50.0)).exp()
        + (x * s(-60.0)).exp2()
        + (x * s(1e-3)).exp_m1()
        + x.ln()
        + (x * s(7.0)).log2()
        + (x * s(1e5)).log10()
        + (x * s(1e-4)).ln_1p();
    *pow = (x * s(10.0)).powf(x * s(3.0))
        + x.powi(5)
        + (x * s(1e5) - s(3.0)).cbrt()
        + x.hypot(x * s(3.0))
        + x.recip();
    let y = x * s(1e3) - s(500.0);
    *round =
        y.floor() + y.ceil() + y.round() + y.trunc() + y.fract() + s(2.0).copysign(y) + y.signum();
    *terminated = x.eq(x) | !x.eq(x);
}

/// [`elementary`] in `f32`.
#[kernel(steps = "auto", real = "f32")]
pub fn elementary_f32(
    x: Scalar,
    terminated: &mut Terminated,
    trig: &mut Scalar,
    inverse: &mut Scalar,
    hyper: &mut Scalar,
    exp_log: &mut Scalar,
    pow: &mut Scalar,
    round: &mut Scalar,
) {
    let s = |v: f64| Scalar::splat(Real::from_f64(v));
    let (sn, cs) = (x * s(1e3)).sin_cos();
    *trig = (x * s(100.0)).sin() + (x * s(3e5)).cos() + x.tan() + sn * cs;
    *inverse = x.asin() + x.acos() + (x * s(10.0)).atan() + x.atan2(x - s(0.5));
    *hyper = (x * s(5.0)).sinh() + (x * s(5.0)).cosh() + (x * s(3.0)).tanh();
    *exp_log = (x * s(50.0)).exp()
        + (x * s(-60.0)).exp2()
        + (x * s(1e-3)).exp_m1()
        + x.ln()
        + (x * s(7.0)).log2()
        + (x * s(1e5)).log10()
        + (x * s(1e-4)).ln_1p();
    *pow = (x * s(10.0)).powf(x * s(3.0))
        + x.powi(5)
        + (x * s(1e5) - s(3.0)).cbrt()
        + x.hypot(x * s(3.0))
        + x.recip();
    let y = x * s(1e3) - s(500.0);
    *round =
        y.floor() + y.ceil() + y.round() + y.trunc() + y.fract() + s(2.0).copysign(y) + y.signum();
    *terminated = x.eq(x) | !x.eq(x);
}
