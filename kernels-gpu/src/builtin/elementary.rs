//! Kernels that call every elementary function of [`crate::math`], one family per kernel, in
//! `f64` and `f32`, so the PTX test assembles all of them for the GPU (no spills allowed).
//! `x` should lie in (0, 1); each step writes one sum of the family's functions to `y`.
#![allow(missing_docs)]

use crate::prelude::*;

/// Defines the `f64` and `f32` kernels of one family: `$body` maps `x` (and the constant
/// maker `s`) to the value stored in `y`.
macro_rules! family {
    ($f64:ident, $f32:ident, |$x:ident, $s:ident| $body:expr) => {
        /// One step: the family's functions of `x`, summed into `y`; then done.
        #[kernel(host_code = "where_used", steps = "auto")]
        pub fn $f64($x: Scalar, terminated: &mut Terminated, y: &mut Scalar) {
            let $s = |v: f64| Scalar::splat(Real::from_f64(v));
            *y = $body;
            *terminated = $x.simd_eq($x) | !$x.simd_eq($x);
        }

        /// The `f32` twin.
        #[kernel(host_code = "where_used", steps = "auto", real = "f32")]
        pub fn $f32($x: Scalar, terminated: &mut Terminated, y: &mut Scalar) {
            let $s = |v: f64| Scalar::splat(Real::from_f64(v));
            *y = $body;
            *terminated = $x.simd_eq($x) | !$x.simd_eq($x);
        }
    };
}

family!(math_trig, math_trig_f32, |x, s| {
    let (sn, cs) = (x * s(1e3)).sin_cos();
    (x * s(100.0)).sin() + (x * s(3e5)).cos() + x.tan() + sn * cs
});

family!(math_inverse, math_inverse_f32, |x, s| {
    x.asin() + x.acos() + (x * s(10.0)).atan() + x.atan2(x - s(0.5))
});

family!(math_hyperbolic, math_hyperbolic_f32, |x, s| {
    (x * s(5.0)).sinh() + (x * s(5.0)).cosh() + (x * s(3.0)).tanh()
});

family!(math_exp_log, math_exp_log_f32, |x, s| {
    (x * s(50.0)).exp()
        + (x * s(-60.0)).exp2()
        + (x * s(1e-3)).exp_m1()
        + x.ln()
        + (x * s(7.0)).log2()
        + (x * s(1e5)).log10()
        + (x * s(1e-4)).ln_1p()
});

family!(math_pow, math_pow_f32, |x, s| {
    (x * s(10.0)).powf(x * s(3.0))
        + x.powi(5)
        + (x * s(1e5) - s(3.0)).cbrt()
        + x.hypot(x * s(3.0))
        + x.recip()
});

family!(math_rounding, math_rounding_f32, |x, s| {
    let y = x * s(1e3) - s(500.0);
    y.floor() + y.ceil() + y.round() + y.trunc() + y.fract() + s(2.0).copysign(y) + y.signum()
});
