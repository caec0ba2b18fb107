//! The classic fixed-step fourth-order Runge-Kutta method.

use super::{Rhs, lc};
use crate::lane::Lane;

/// One step of the classic RK4 method from `(t, y)` with step `h`; returns `y(t + h)`.
///
/// Four right-hand-side evaluations. Arithmetic is plain IEEE (no fused multiply-add), so
/// every lane type gives the same bits.
#[inline(always)]
pub fn rk4_step<L: Lane, F: Rhs<L, N>, const N: usize>(f: &F, t: L, y: &[L; N], h: L) -> [L; N] {
    let half = h * lc::<L>(0.5);
    let k1 = f.eval(t, y);
    let y2: [L; N] = core::array::from_fn(|n| y[n] + half * k1[n]);
    let k2 = f.eval(t + half, &y2);
    let y3: [L; N] = core::array::from_fn(|n| y[n] + half * k2[n]);
    let k3 = f.eval(t + half, &y3);
    let y4: [L; N] = core::array::from_fn(|n| y[n] + h * k3[n]);
    let k4 = f.eval(t + h, &y4);
    let sixth = h / lc::<L>(6.0);
    let two = lc::<L>(2.0);
    core::array::from_fn(|n| y[n] + sixth * (k1[n] + two * (k2[n] + k3[n]) + k4[n]))
}

/// Classic RK4 with every stage update and the final combination fused (`mul_add`): the
/// same method and FLOP count as [`rk4_step`] in fewer instructions, rounded once per fused
/// operation. Results differ from [`rk4_step`] in the last bits, but not between lane types
/// (the host's `vfmadd` and the GPU's `fma.rn` round alike).
#[inline(always)]
pub fn rk4_step_fma<L: Lane, F: Rhs<L, N>, const N: usize>(
    f: &F,
    t: L,
    y: &[L; N],
    h: L,
) -> [L; N] {
    let half = h * lc::<L>(0.5);
    let k1 = f.eval(t, y);
    let y2: [L; N] = core::array::from_fn(|n| k1[n].mul_add(half, y[n]));
    let k2 = f.eval(t + half, &y2);
    let y3: [L; N] = core::array::from_fn(|n| k2[n].mul_add(half, y[n]));
    let k3 = f.eval(t + half, &y3);
    let y4: [L; N] = core::array::from_fn(|n| k3[n].mul_add(h, y[n]));
    let k4 = f.eval(t + h, &y4);
    let sixth = h / lc::<L>(6.0);
    let two = lc::<L>(2.0);
    core::array::from_fn(|n| ((k2[n] + k3[n]).mul_add(two, k1[n]) + k4[n]).mul_add(sixth, y[n]))
}
