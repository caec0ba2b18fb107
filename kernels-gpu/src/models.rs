//! Right-hand sides of standard test problems, generic over the lane: for built-in
//! kernels, test kernels and checks alike (a kernel crate's GPU build has them without
//! hawk's built-in kernels).

use crate::{Lane, Real};

/// The constant `v` on every lane.
#[inline(always)]
fn c<S: Lane>(v: f64) -> S {
    S::splat(<S::Elem as Real>::from_f64(v))
}

/// Robertson's chemical kinetics, three species: `y1' = -k1 y1 + k3 y2 y3`,
/// `y2' = k1 y1 - k2 y2^2 - k3 y2 y3`, `y3' = k2 y2^2`.
#[inline(always)]
pub fn robertson<S: Lane>(y: &[S; 3], k1: S, k2: S, k3: S) -> [S; 3] {
    let (a, b, c) = (k1 * y[0], k2 * y[1] * y[1], k3 * y[1] * y[2]);
    [c - a, a - b - c, b]
}

/// Van der Pol's oscillator, stiff for large `mu`.
#[inline(always)]
pub fn van_der_pol<S: Lane>(y: &[S; 2], mu: S) -> [S; 2] {
    [y[1], mu * (c::<S>(1.0) - y[0] * y[0]) * y[1] - y[0]]
}

/// The Oregonator (Field and Noyes; Hairer and Wanner II, IV.10) with parameter `s`.
#[inline(always)]
pub fn oregonator<S: Lane>(y: &[S; 3], s: S) -> [S; 3] {
    let (q, w, one) = (c::<S>(8.375e-6), c::<S>(0.161), c::<S>(1.0));
    [
        s * (y[1] + y[0] * (one - q * y[0] - y[1])),
        (y[2] - (one + y[0]) * y[1]) / s,
        w * (y[0] - y[2]),
    ]
}

/// HIRES, the 8-state photomorphogenesis problem (Hairer and Wanner II, IV.10), with the
/// rate of `y1 -> y2` (1.71) scaled by `p`.
#[inline(always)]
pub fn hires<S: Lane>(y: &[S; 8], p: S) -> [S; 8] {
    let c = c::<S>;
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
