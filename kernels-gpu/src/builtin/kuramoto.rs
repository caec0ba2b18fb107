//! Kuramoto oscillators: `N` = 32 phases per sample, `dtheta_i/dt = omega_i + (K / N)
//! sum_j sin(theta_j - theta_i)` (every pair, as a general coupling is written), the natural
//! frequencies `omega` a table shared by all samples and the coupling `K` per sample; classic
//! RK4 at a fixed `dt`, as a problem.

use crate::prelude::*;

/// The number of phases of the built-in Kuramoto kernel.
pub const KURAMOTO_N: usize = 32;

/// Kuramoto (32 phases) with RK4: planes `coupling` (per sample), `omega` (a table of 32),
/// `dt`, `t_end`, `theta`, `t`.
#[problem(host_code = "where_used", method = "rk4")]
pub fn kuramoto_rk4(
    _t: Scalar,
    theta: &[Scalar; KURAMOTO_N],
    coupling: Scalar,
    omega: &[Param; KURAMOTO_N],
) -> [Scalar; KURAMOTO_N] {
    // Plain loops, not closures: inlined into the host team's ISA-specific loops.
    let k = coupling / Scalar::splat(KURAMOTO_N as f64);
    let mut d = [Scalar::splat(0.0); KURAMOTO_N];
    for i in 0..KURAMOTO_N {
        let mut sum = Scalar::splat(0.0);
        for j in 0..KURAMOTO_N {
            sum += (theta[j] - theta[i]).sin();
        }
        d[i] = omega[i] + k * sum;
    }
    d
}
