//! The card's stiff workloads: Robertson's chemical kinetics and HIRES, Rodas5P with the
//! Jacobian by dual numbers (`crate::dual`), f64.

use crate::prelude::*;

/// Robertson's kinetics, three species: `y1' = -k1 y1 + k3 y2 y3`, `y2' = k1 y1 - k2 y2^2 -
/// k3 y2 y3`, `y3' = k2 y2^2`, rates per sample; Rodas5P (adaptive).
#[problem(method = "rodas5p")]
pub fn robertson_rodas5p(
    _t: Scalar,
    y: &[Scalar; 3],
    k1: Scalar,
    k2: Scalar,
    k3: Scalar,
) -> [Scalar; 3] {
    let (a, b, c) = (k1 * y[0], k2 * y[1] * y[1], k3 * y[1] * y[2]);
    [c - a, a - b - c, b]
}

/// HIRES, the 8-state photomorphogenesis problem (Hairer and Wanner II, IV.10), with the
/// rate of `y1 -> y2` (1.71) scaled by `p` per sample; Rodas5P (adaptive).
#[problem(method = "rodas5p")]
pub fn hires_rodas5p(_t: Scalar, y: &[Scalar; 8], p: Scalar) -> [Scalar; 8] {
    hires_field(y, p)
}

/// HIRES's right-hand side on any lane, with the rate of `y1 -> y2` (1.71) scaled by `p`.
#[inline(always)]
pub fn hires_field<S: Lane>(y: &[S; 8], p: S) -> [S; 8] {
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
