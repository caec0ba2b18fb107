//! A harmonic oscillator per sample (`x'' = -omega^2 x`), stepped with explicit Euler until
//! `t >= t_end`: the kernel of eagle's examples and of its profile page.
#![allow(missing_docs)]

use crate::prelude::*;

/// The oscillator of "Profile your run": per-sample `omega`, shared `t_end` and `dt`.
#[kernel(steps = "auto")]
pub fn oscillator(
    omega: Scalar,
    t_end: Param,
    dt: Param,
    terminated: &mut Terminated,
    x: &mut Scalar,
    v: &mut Scalar,
    t: &mut Scalar,
) {
    let (x0, v0) = (*x, *v);
    *x = x0 + dt * v0;
    *v = v0 - dt * omega * omega * x0;
    *t += dt;
    *terminated = t.simd_ge(t_end);
}
