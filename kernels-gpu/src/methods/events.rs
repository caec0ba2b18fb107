//! Events: a condition `g(t, y)` that crosses zero inside a step, found and located per
//! lane.
//!
//! After a step from `(t0, y0)` to `(t0 + h, y1)`, [`Direction::crossed`] says on which
//! lanes `g` changed sign the way the event asks for, and [`locate`] finds, on those lanes,
//! the time inside the step where it did.
//!
//! **The continuous extension is the method's own step.** The state at `t0 + tau` is one
//! step of length `tau` from `(t0, y0)` with the same method (the `step` argument of
//! [`locate`]). It has the method's order at every `tau`, needs no interpolation
//! coefficients (Fehlberg 7(8) and Dormand-Prince 8(7) have none without extra stages),
//! and at `tau = h` it is the step's own result, bit for bit. Each root-finding iteration
//! costs one step; events are rare, and only the lanes' groups that have one pay it.
//!
//! **Root finding: Illinois** (modified regula falsi; Dowell and Jarratt, BIT 11 (1971)).
//! It keeps a bracket `[lo, hi]` with `g` on the pre-crossing side at `lo` and on the
//! crossing's side at `hi` (zero included), replaces the end on the side of each new
//! point, and halves the kept end's value when the same end is kept twice, which makes it
//! converge superlinearly where plain regula falsi stalls. It stops per lane when the
//! bracket is at most `tol` wide (or after `max_iter` steps) and returns `hi`: the located
//! state is always on or past the crossing, so the next step starts on the new side of
//! zero and the same crossing does not fire twice.
//!
//! **Conventions.** A crossing needs a strict sign at the step's start: `g(t0) = 0` never
//! fires (an event there was handled at the end of the previous step, or sits at the
//! start of the integration). `g(t0 + h) = 0` fires, at the step's end. A touch without a
//! change of sign (grazing) does not fire, nor do two crossings inside one step, which
//! cancel out: steps must be shorter than the time between two crossings (a bouncing
//! ball's last, short flights bound the step).
//!
//! Everything is branch-free per lane (masks and [`Lane::select`]), so every lane width
//! and every team computes the same bits.

use super::lc;
use crate::lane::{Lane, Mask};

/// Which sign changes of an event function fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From negative to zero or positive.
    Rising,
    /// From positive to zero or negative.
    Falling,
    /// Either way.
    Either,
}

impl Direction {
    /// The lanes on which `g` went from `g0` (at the step's start) to `g1` (at its end)
    /// the way this direction asks for. NaN fires nothing.
    #[inline(always)]
    pub fn crossed<L: Lane>(self, g0: L, g1: L) -> L::Mask {
        let zero = lc::<L>(0.0);
        let rising = g0.simd_lt(zero) & g1.simd_ge(zero);
        let falling = g0.simd_gt(zero) & g1.simd_le(zero);
        match self {
            Direction::Rising => rising,
            Direction::Falling => falling,
            Direction::Either => rising | falling,
        }
    }
}

/// Where an event was located, per lane.
#[derive(Clone, Copy, Debug)]
pub struct Located<L, const N: usize> {
    /// The step length from `t0` to the event (`h` where the crossing is at the step's
    /// end; unchanged lanes: `h`).
    pub tau: L,
    /// The state at `t0 + tau` (unchanged lanes: `y1`, the step's own result).
    pub y: [L; N],
    /// Root-finding iterations the group took (each one step of the method).
    pub iterations: u32,
}

/// Locates, on the lanes of `crossing`, the time inside the step `(t0, y0) -> (t0 + h,
/// y1)` at which `g` crossed zero; see the module docs for the method.
///
/// - `g(t, y)`: the event function.
/// - `step(tau)`: the state after one step of length `tau` from `(t0, y0)`, with the
///   method that made the step (`step(h)` must equal `y1`).
/// - `g0`, `g1`: `g` at the step's start and end (as [`Direction::crossed`] saw them).
/// - `tol`: the bracket width in `t` at which a lane stops (at least a few ulps of `t`).
/// - `max_iter`: the most iterations (steps) the group may take.
///
/// Lanes outside `crossing` get `tau = h` and `y = y1`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn locate<L: Lane, const N: usize>(
    g: impl Fn(L, &[L; N]) -> L,
    step: impl Fn(L) -> [L; N],
    t0: L,
    h: L,
    y1: &[L; N],
    g0: L,
    g1: L,
    crossing: L::Mask,
    tol: L,
    max_iter: u32,
) -> Located<L, N> {
    let zero = lc::<L>(0.0);
    let half = lc::<L>(0.5);
    // The bracket: `lo` on the pre-crossing side, `hi` on the crossing's side.
    let (mut lo, mut g_lo) = (zero, g0);
    let (mut hi, mut g_hi) = (h, g1);
    let mut y_hi = *y1;
    // Which end the last iteration kept, for the Illinois halving.
    let mut kept_lo = L::Mask::splat(false);
    let mut kept_hi = L::Mask::splat(false);
    // A lane whose `g` is zero at the step's end has its event there.
    let mut open = crossing & (hi - lo).simd_gt(tol) & !g_hi.simd_eq(zero);
    let mut iterations = 0;
    while open.any() && iterations < max_iter {
        iterations += 1;
        // Regula falsi, kept strictly inside the bracket (a bisection where the secant
        // lands on or outside an end, e.g. after underflow).
        let secant = lo - g_lo * (hi - lo) / (g_hi - g_lo);
        let inside = secant.simd_gt(lo) & secant.simd_lt(hi);
        let mid = L::select(inside, secant, lo + (hi - lo) * half);
        let tau = L::select(open, mid, hi);
        let y = step(tau);
        let gt = g(t0 + tau, &y);
        // Strictly on the pre-crossing side (`lo`'s sign): the new point replaces `lo`;
        // otherwise (zero included) it replaces `hi`.
        let before =
            (g_lo.simd_lt(zero) & gt.simd_lt(zero)) | (g_lo.simd_gt(zero) & gt.simd_gt(zero));
        let to_lo = open & before;
        let to_hi = open & !before;
        hi = L::select(to_hi, tau, hi);
        g_hi = L::select(to_hi, gt, g_hi);
        for n in 0..N {
            y_hi[n] = L::select(to_hi, y[n], y_hi[n]);
        }
        lo = L::select(to_lo, tau, lo);
        g_lo = L::select(to_lo, gt, g_lo);
        // Illinois: the end kept twice in a row has its value halved.
        g_lo = L::select(to_hi & kept_lo, g_lo * half, g_lo);
        g_hi = L::select(to_lo & kept_hi, g_hi * half, g_hi);
        kept_lo = to_hi | (!open & kept_lo);
        kept_hi = to_lo | (!open & kept_hi);
        open = open & (hi - lo).simd_gt(tol) & !gt.simd_eq(zero);
    }
    Located {
        tau: L::select(crossing, hi, h),
        y: core::array::from_fn(|n| L::select(crossing, y_hi[n], y1[n])),
        iterations,
    }
}
