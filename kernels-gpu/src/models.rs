//! Right-hand sides of standard test problems, generic over the lane: for built-in
//! kernels, test kernels and checks alike (a kernel crate's GPU build has them without
//! hawk's built-in kernels).

use crate::{Lane, Real};

/// HIRES, the 8-state photomorphogenesis problem (Hairer and Wanner II, IV.10), with the
/// rate of `y1 -> y2` (1.71) scaled by `p`.
#[inline(always)]
pub fn hires<S: Lane>(y: &[S; 8], p: S) -> [S; 8] {
    let c = |v: f64| S::splat(<S::Elem as Real>::from_f64(v));
    let r = c(1.71) * p;
    let f7 = c(280.0) * y[5] * y[7] - c(1.81) * y[6];
    [
        -r * y[0] + c(0.43) * y[1] + c(8.32) * y[2] + c(0.0007),
        r * y[0] - c(8.75) * y[1],
        -c(10.03) * y[2] + c(0.43) * y[3] + c(0.035) * y[4],
        c(8.32) * y[1] + c(1.71) * y[2] - c(1.12) * y[3],
        -c(1.745) * y[4] + c(0.43) * y[5] + c(0.43) * y[6],
        -c(280.0) * y[5] * y[7] + c(0.69) * y[3] + c(1.71) * y[4] - c(0.43) * y[5] + c(0.69) * y[6],
        f7,
        -f7,
    ]
}
