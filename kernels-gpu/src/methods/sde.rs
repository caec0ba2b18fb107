//! Fixed-step methods for Itô stochastic differential equations with diagonal noise,
//! `dy_i = f_i(t, y) dt + g_i(t, y) dW_i`: one Wiener channel per component.
//!
//! Each step takes the step's increments as arguments (`dw`, and `dz` for
//! [`sra1_step`]), so the caller decides where they come from: a problem draws them from
//! its sample's [`Stream`] ([`wiener`]); a convergence test can
//! sum a finer path's increments into a coarse step's.
//!
//! | method | strong order | needs |
//! | --- | --- | --- |
//! | [`euler_maruyama_step`] | 0.5 (1.0 for additive noise) | `f`, `g` |
//! | [`milstein_step`] | 1.0 | `f`, `g`, `dg_i/dy_i` |
//! | [`milstein_free_step`] | 1.0 when each `g_i` depends on `y_i` alone | `f`, `g` (one more `g`) |
//! | [`sra1_step`] | 1.5 for additive noise (`g` independent of `y`) | `f`, `g`, `dz` |
//!
//! Arithmetic is plain IEEE in a fixed order (no fused multiply-add), so every lane type
//! gives the same bits.

use super::{Rhs, lc};
use crate::lane::Lane;
use crate::random::Stream;

/// The Wiener increments of one step of length `h` (its square root `sqrt_h`): `N`
/// standard normals of `stream` from block `first_block` on, times `sqrt_h`. A step that
/// needs a second, independent set ([`sra1_step`]'s `dz`) starts it at block `N`.
#[inline(always)]
pub fn wiener<L: Lane, const N: usize>(stream: &Stream<L>, first_block: u32, sqrt_h: L) -> [L; N] {
    stream.normals::<N>(first_block).map(|z| z * sqrt_h)
}

/// Euler-Maruyama: `y + f(t, y) h + g(t, y) dw`.
#[inline(always)]
pub fn euler_maruyama_step<L: Lane, F: Rhs<L, N>, G: Rhs<L, N>, const N: usize>(
    f: &F,
    g: &G,
    t: L,
    y: &[L; N],
    h: L,
    dw: &[L; N],
) -> [L; N] {
    let (a, b) = (f.eval(t, y), g.eval(t, y));
    core::array::from_fn(|i| y[i] + a[i] * h + b[i] * dw[i])
}

/// Milstein (Itô, diagonal noise) with the derivative `dg(t, y)_i = dg_i/dy_i` supplied:
/// `y + f h + g dw + g dg (dw^2 - h) / 2`.
#[inline(always)]
pub fn milstein_step<L: Lane, F: Rhs<L, N>, G: Rhs<L, N>, D: Rhs<L, N>, const N: usize>(
    f: &F,
    g: &G,
    dg: &D,
    t: L,
    y: &[L; N],
    h: L,
    dw: &[L; N],
) -> [L; N] {
    let (a, b, d) = (f.eval(t, y), g.eval(t, y), dg.eval(t, y));
    let half = lc::<L>(0.5);
    core::array::from_fn(|i| {
        y[i] + a[i] * h + b[i] * dw[i] + half * b[i] * d[i] * (dw[i] * dw[i] - h)
    })
}

/// Milstein without the derivative (Platen's derivative-free scheme, Kloeden and Platen,
/// "Numerical Solution of Stochastic Differential Equations", 1992, eq. 11.1.5): the
/// product `g dg/dy` is the finite difference `(g(t, s) - g(t, y)) / sqrt(h)` along the
/// support value `s = y + f h + g sqrt(h)`. Strong order 1 when each `g_i` depends on `y_i`
/// only (with cross-dependence the difference picks up `dg_i/dy_j g_j` terms); one more
/// evaluation of `g`.
#[inline(always)]
pub fn milstein_free_step<L: Lane, F: Rhs<L, N>, G: Rhs<L, N>, const N: usize>(
    f: &F,
    g: &G,
    t: L,
    y: &[L; N],
    h: L,
    dw: &[L; N],
) -> [L; N] {
    let (a, b) = (f.eval(t, y), g.eval(t, y));
    let sqrt_h = h.sqrt();
    let support: [L; N] = core::array::from_fn(|i| y[i] + a[i] * h + b[i] * sqrt_h);
    let bs = g.eval(t, &support);
    let scale = lc::<L>(0.5) / sqrt_h;
    core::array::from_fn(|i| {
        y[i] + a[i] * h + b[i] * dw[i] + (bs[i] - b[i]) * scale * (dw[i] * dw[i] - h)
    })
}

/// Rößler's SRA1 for additive noise (`g` a function of `t` only), strong order 1.5
/// (A. Rößler, "Runge-Kutta methods for the strong approximation of solutions of
/// stochastic differential equations", SIAM J. Numer. Anal. 48(3), 2010: `c0 = (0, 3/4)`,
/// `A0_21 = 3/4`, `B0_21 = 3/2`, `alpha = (1/3, 2/3)`, `c1 = (1, 0)`, `beta1 = (1, 0)`,
/// `beta2 = (-1, 1)`; diffrax's and StochasticDiffEq's SRA1 use the same tableau).
///
/// `dw` is the step's Wiener increment and `dz` an independent `N(0, h)` draw per channel:
/// together they give `I_(1,0) / h = (dw + dz / sqrt 3) / 2`, the time integral of the
/// path over the step, divided by `h`. Two evaluations of `f`, two of `g`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sra1_step<L: Lane, F: Rhs<L, N>, G: Rhs<L, N>, const N: usize>(
    f: &F,
    g: &G,
    t: L,
    y: &[L; N],
    h: L,
    dw: &[L; N],
    dz: &[L; N],
) -> [L; N] {
    let half = lc::<L>(0.5);
    let inv_sqrt3 = lc::<L>(0.577_350_269_189_625_8);
    let area: [L; N] = core::array::from_fn(|i| half * (dw[i] + dz[i] * inv_sqrt3));
    let k1 = f.eval(t, y);
    let t1 = t + h;
    let g0 = g.eval(t, y);
    let g1 = g.eval(t1, y);
    let (three_quarters, three_halves) = (lc::<L>(0.75), lc::<L>(1.5));
    let stage: [L; N] = core::array::from_fn(|i| {
        y[i] + three_quarters * h * k1[i] + three_halves * g1[i] * area[i]
    });
    let k2 = f.eval(t + three_quarters * h, &stage);
    let (third, two_thirds) = (lc::<L>(1.0 / 3.0), lc::<L>(2.0 / 3.0));
    core::array::from_fn(|i| {
        y[i] + h * (third * k1[i] + two_thirds * k2[i]) + g1[i] * dw[i] + (g0[i] - g1[i]) * area[i]
    })
}
