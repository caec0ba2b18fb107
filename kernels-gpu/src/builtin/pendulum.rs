//! The driven damped pendulum, `theta'' + gamma theta' + sin(theta) = A cos(omega t)`: the
//! classic chaotic-pendulum ensemble (Baker and Gollub's), swept over the drive's amplitude
//! `A` and frequency `omega` per sample, with a shared damping `gamma`; fixed-step RK4 in f64
//! and f32. The kernel of the card that needs the elementary functions (`sin`, `cos` from
//! [`crate::math`], evaluated on every lane).

use crate::methods::{Rhs, rk4_step_fma};
use crate::prelude::*;

/// The pendulum's right-hand side for one lane group, state `(theta, v)`:
/// `(v, A cos(omega t) - gamma v - sin(theta))`.
///
/// A struct with an `#[inline(always)]` [`Rhs::eval`] rather than a closure: a closure's
/// body is a function of its own, and one this large (two elementary functions) is not
/// inlined into the host team's ISA-specific loop, so it would run without that loop's
/// instruction set (every `mul_add` a call per lane). See [`Rhs`].
#[derive(Clone, Copy, Debug)]
pub struct PendulumRhs<L> {
    /// Drive amplitude `A`.
    pub amp: L,
    /// Drive frequency `omega`.
    pub omega: L,
    /// Damping `gamma`.
    pub gamma: L,
}

impl<L: Lane> Rhs<L, 2> for PendulumRhs<L> {
    #[inline(always)]
    fn eval(&self, t: L, u: &[L; 2]) -> [L; 2] {
        [
            u[1],
            self.amp * (self.omega * t).cos() - self.gamma * u[1] - u[0].sin(),
        ]
    }
}

macro_rules! pendulum_rk4 {
    ($name:ident, $real:literal) => {
        /// The driven damped pendulum with classic RK4 at a fixed `dt`, until
        /// `t >= t_end - dt/2` (so exactly `round(t_end / dt)` steps).
        #[kernel(host_code = "where_used", steps = "auto", real = $real, time = t)]
        pub fn $name(
            amp: Scalar,
            omega: Scalar,
            gamma: Param,
            dt: Param,
            t_end: Param,
            terminated: &mut Terminated,
            theta: &mut Scalar,
            v: &mut Scalar,
            t: &mut Scalar,
        ) {
            let f = PendulumRhs { amp, omega, gamma };
            let u = rk4_step_fma(&f, *t, &[*theta, *v], dt);
            *theta = u[0];
            *v = u[1];
            *t += dt;
            *terminated = t.simd_ge(t_end - dt * Scalar::splat(0.5));
        }
    };
}
pendulum_rk4!(pendulum_rk4, "f64");
pendulum_rk4!(pendulum_rk4_f32, "f32");
