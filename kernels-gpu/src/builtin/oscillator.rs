//! A harmonic oscillator per sample (`x'' = -omega^2 x`), stepped with explicit Euler until
//! `t >= t_end`: the kernel of eagle's examples and of its profile page, plain and
//! contracted (`#[kernel(contract)]`: its two multiply-adds fused).
#![allow(missing_docs)]

use crate::prelude::*;

/// The oscillator's kernel, named `$name`, with settings `$settings` besides the shared
/// ones: one body for the plain and the contracted kernel.
macro_rules! oscillator {
    ($(#[$doc:meta])* $name:ident $(, $setting:tt)?) => {
        $(#[$doc])*
        #[kernel(steps = "auto", time = t $(, $setting)?)]
        pub fn $name(
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
    };
}

oscillator!(
    /// The oscillator of "Profile your run": per-sample `omega`, shared `t_end` and `dt`.
    oscillator
);
oscillator!(
    /// [`oscillator`] contracted: `x0 + dt * v0` and `v0 - (dt * omega * omega) * x0` are
    /// each one fused multiply-add (5 operations a step instead of 7, the same 7 FLOPs),
    /// rounded once. The same bits on every team; not the plain kernel's bits.
    oscillator_contracted,
    contract
);
