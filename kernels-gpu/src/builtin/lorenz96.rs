//! Lorenz-96 (Lorenz 1996): `N` = 40 sites on a ring,
//! `du_i/dt = (u_{i+1} - u_{i-2}) u_{i-1} - u_i + F`, the forcing `F` per sample; classic
//! RK4 at a fixed `dt`, in f64 and f32, and Tsitouras 5(4) as a problem. The state is one
//! array plane (`u: &mut [Scalar; 40]`): the model the array planes were made
//! for, and a card workload.

use crate::methods::rk4_step;
use crate::prelude::*;

/// The number of sites of the built-in Lorenz-96 kernels.
pub const LORENZ96_N: usize = 40;

/// The Lorenz-96 right-hand side for one lane group with forcing `forcing`:
/// `(u[i+1] - u[i-2]) * u[i-1] - u[i] + F`, indices on the ring, in that order of operations
/// (plain IEEE arithmetic, no fused multiply-add). A function with a plain loop, not a
/// closure, so that it is inlined into the host team's instruction-set-specific loops
/// whatever the method around it (see `hawk::methods::Rhs`).
#[inline(always)]
pub fn lorenz96_rhs<L: Lane, const N: usize>(forcing: L, u: &[L; N]) -> [L; N] {
    let mut du = [forcing; N];
    for i in 0..N {
        du[i] = (u[(i + 1) % N] - u[(i + N - 2) % N]) * u[(i + N - 1) % N] - u[i] + forcing;
    }
    du
}

macro_rules! lorenz96_rk4 {
    ($name:ident, $real:literal) => {
        /// Lorenz-96 (40 sites) with classic RK4 at a fixed `dt`, until `t >= t_end - dt/2`
        /// (exactly `round(t_end / dt)` steps).
        #[kernel(host_code = "where_used", steps = "auto", real = $real, time = t)]
        pub fn $name(
            forcing: Scalar,
            dt: Param,
            t_end: Param,
            terminated: &mut Terminated,
            u: &mut [Scalar; LORENZ96_N],
            t: &mut Scalar,
        ) {
            let f = |_t: Scalar, u: &[Scalar; LORENZ96_N]| lorenz96_rhs(forcing, u);
            *u = rk4_step(&f, *t, u, dt);
            *t += dt;
            *terminated = t.simd_ge(t_end - dt * Scalar::splat(0.5));
        }
    };
}
lorenz96_rk4!(lorenz96_rk4, "f64");
lorenz96_rk4!(lorenz96_rk4_f32, "f32");

/// Lorenz-96 (40 sites) with adaptive Tsitouras 5(4), as a problem: the right-hand side
/// [`lorenz96_rhs`] and the method; planes `forcing`, `t_end`, `rtol`, `atol`, `u`, `t`,
/// `h`, `accepted`, `rejected`.
#[problem(host_code = "where_used", method = "tsit5")]
pub fn lorenz96_tsit5(
    t: Scalar,
    u: &[Scalar; LORENZ96_N],
    forcing: Scalar,
) -> [Scalar; LORENZ96_N] {
    let _ = t;
    lorenz96_rhs(forcing, u)
}
