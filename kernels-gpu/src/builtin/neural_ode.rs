//! A neural ODE: `dy/dt = W2 tanh(W1 y + b1) + b2`, a 4-32-4 network whose weights are one
//! table shared by all samples, the initial state per sample; classic RK4 at a fixed `dt`,
//! as a problem.

use crate::prelude::*;

/// State size (the network's input and output width).
pub const NEURAL_ODE_N: usize = 4;
/// Hidden width.
pub const NEURAL_ODE_HIDDEN: usize = 32;
/// The weight table's length: `W1` (32 x 4, row-major), `b1` (32), `W2` (4 x 32,
/// row-major), `b2` (4), in this order.
pub const NEURAL_ODE_WEIGHTS: usize =
    2 * NEURAL_ODE_N * NEURAL_ODE_HIDDEN + NEURAL_ODE_HIDDEN + NEURAL_ODE_N;

/// The 4-32-4 tanh network with RK4: planes `w` (the table), `dt`, `t_end`, `y`, `t`.
/// Sums run in index order, one multiply and one add each (no fused multiply-add).
#[problem(host_code = "where_used", method = "rk4")]
pub fn neural_ode_rk4(
    _t: Scalar,
    y: &[Scalar; NEURAL_ODE_N],
    w: &[Param; NEURAL_ODE_WEIGHTS],
) -> [Scalar; NEURAL_ODE_N] {
    const B1: usize = NEURAL_ODE_N * NEURAL_ODE_HIDDEN;
    const W2: usize = B1 + NEURAL_ODE_HIDDEN;
    const B2: usize = W2 + NEURAL_ODE_N * NEURAL_ODE_HIDDEN;
    // Plain loops, not closures: inlined into the host team's ISA-specific loops.
    let mut hidden = [Scalar::splat(0.0); NEURAL_ODE_HIDDEN];
    for k in 0..NEURAL_ODE_HIDDEN {
        let mut a = w[B1 + k];
        for j in 0..NEURAL_ODE_N {
            a += w[k * NEURAL_ODE_N + j] * y[j];
        }
        hidden[k] = a.tanh();
    }
    let mut dy = [Scalar::splat(0.0); NEURAL_ODE_N];
    for i in 0..NEURAL_ODE_N {
        let mut a = w[B2 + i];
        for k in 0..NEURAL_ODE_HIDDEN {
            a += w[W2 + i * NEURAL_ODE_HIDDEN + k] * hidden[k];
        }
        dy[i] = a;
    }
    dy
}
