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

/// What a fired event does to its sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The sample stops at the event: its final time and state are the event's.
    Terminate,
    /// The sample's state at the event is changed (a bounce, a reset) and the integration
    /// continues from the event's time.
    Modify,
    /// The event is counted (and recorded) only; the integration continues from the
    /// event's time with the state unchanged.
    Count,
}

/// One event: which sign changes of its condition fire, and what it then does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Which sign changes fire.
    pub direction: Direction,
    /// What the event does.
    pub action: Action,
}

/// A step checked for events ([`check_step`]), per lane.
#[derive(Clone, Copy, Debug)]
pub struct Checked<L: Lane, const N: usize> {
    /// Lanes on which an event fired inside the step.
    pub fired: L::Mask,
    /// Which event fired first (its index, as a lane value); 0 where none fired.
    pub which: L,
    /// The time where the lane's step now ends: the first event's where one fired, else
    /// the step's end `t1`.
    pub t: L,
    /// The state at that time: located where an event fired, else the step's `y1`.
    pub y: [L; N],
    /// Active lanes on which a condition is NaN at the step's end: the sample should
    /// fail (no event of that lane fires; a NaN at the start fires nothing either).
    pub nan: L::Mask,
}

impl<L: Lane, const N: usize> Checked<L, N> {
    /// Lanes on which event `k` fired first.
    #[inline(always)]
    pub fn fired_event(&self, k: usize) -> L::Mask {
        self.fired & self.which.simd_eq(lc::<L>(k as f64))
    }
}

/// Checks one step `(t0, y0) -> (t1, y1)` of length `h` for the events `events`, on the
/// lanes of `active`, and locates the first one per lane.
///
/// - `g(t, y)`: every event's condition at once (`[L; K]`, in the order of `events`).
/// - `step(tau)`: the state after one step of length `tau` from `(t0, y0)` with the method
///   that made the step (`step(h)` is `y1`): the continuous extension [`locate`] uses.
/// - `tol`, `max_iter`: [`locate`]'s.
///
/// Each condition that crossed (in its direction) on a lane is located with [`locate`];
/// the earliest acts (a tie goes to the lower index). Every event, whatever its action,
/// ends the lane's step at its time: the next step starts there, on the crossing's side
/// of zero, so the same crossing does not fire again. An event at the step's end keeps
/// `t1` exactly as the step's time. Lanes outside `active`, and lanes with no event, get
/// `(t1, y1)`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn check_step<L: Lane, const N: usize, const K: usize>(
    events: &[Event; K],
    g: impl Fn(L, &[L; N]) -> [L; K],
    step: impl Fn(L) -> [L; N],
    t0: L,
    y0: &[L; N],
    h: L,
    t1: L,
    y1: &[L; N],
    active: L::Mask,
    tol: L,
    max_iter: u32,
) -> Checked<L, N> {
    let g0 = g(t0, y0);
    let g1 = g(t1, y1);
    // NaN at the step's end (the start's value was the previous step's end, checked
    // then): no event of that lane can fire, and it fails.
    let mut nan = L::Mask::splat(false);
    for g in &g1 {
        nan |= !g.simd_eq(*g);
    }
    let nan = nan & active;
    let live = active & !nan;
    let crossed: [L::Mask; K] =
        core::array::from_fn(|k| events[k].direction.crossed(g0[k], g1[k]) & live);
    let mut any = L::Mask::splat(false);
    for c in &crossed {
        any |= *c;
    }
    if !any.any() {
        return Checked {
            fired: any,
            which: lc::<L>(0.0),
            t: t1,
            y: *y1,
            nan,
        };
    }
    locate_first(
        &g, &step, t0, h, t1, y1, &g0, &g1, &crossed, nan, tol, max_iter,
    )
}

/// [`check_step`]'s slow path, for a group in which an event fired: locates each crossed
/// condition and keeps the earliest per lane. Out of line on the host, so the step without
/// events keeps its registers.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never), cold)]
#[cfg_attr(target_arch = "nvptx64", inline(always))]
fn locate_first<L: Lane, const N: usize, const K: usize>(
    g: &impl Fn(L, &[L; N]) -> [L; K],
    step: &impl Fn(L) -> [L; N],
    t0: L,
    h: L,
    t1: L,
    y1: &[L; N],
    g0: &[L; K],
    g1: &[L; K],
    crossed: &[L::Mask; K],
    nan: L::Mask,
    tol: L,
    max_iter: u32,
) -> Checked<L, N> {
    let mut out = Checked {
        fired: L::Mask::splat(false),
        which: lc::<L>(0.0),
        t: t1,
        y: *y1,
        nan,
    };
    let mut first = h;
    for k in 0..K {
        if !crossed[k].any() {
            continue;
        }
        let at = locate(
            |t, y| g(t, y)[k],
            step,
            t0,
            h,
            y1,
            g0[k],
            g1[k],
            crossed[k],
            tol,
            max_iter,
        );
        // Earlier than every event before it (strictly: a tie keeps the lower index).
        let earlier = crossed[k] & (!out.fired | at.tau.simd_lt(first));
        first = L::select(earlier, at.tau, first);
        out.which = L::select(earlier, lc::<L>(k as f64), out.which);
        for n in 0..N {
            out.y[n] = L::select(earlier, at.y[n], out.y[n]);
        }
        out.fired |= earlier;
    }
    let at_end = first.simd_eq(h);
    out.t = L::select(out.fired & !at_end, t0 + first, t1);
    out
}

/// Records the events that fired (`fired`, with their time `t`, index `which` and state
/// `y`) in a sample's fixed-size record: slot `count` of `times`, `kinds` and `states`
/// (state component `j` of slot `k` at `states[k * N + j]`), then `count` grows by one.
///
/// Returns the lanes whose record was already full (`count >= M` before): nothing is
/// written for them, `count` still grows. `S` must be `M * N` (checked at compile time).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn record<L: Lane, const N: usize, const M: usize, const S: usize>(
    fired: L::Mask,
    t: L,
    which: L,
    y: &[L; N],
    count: &mut L,
    times: &mut [L; M],
    kinds: &mut [L; M],
    states: &mut [L; S],
) -> L::Mask {
    const { assert!(S == M * N, "the state record holds M * N values") };
    if !fired.any() {
        return fired;
    }
    for k in 0..M {
        let here = fired & count.simd_eq(lc::<L>(k as f64));
        times[k] = L::select(here, t, times[k]);
        kinds[k] = L::select(here, which, kinds[k]);
        for j in 0..N {
            states[k * N + j] = L::select(here, y[j], states[k * N + j]);
        }
    }
    let full = fired & count.simd_ge(lc::<L>(M as f64));
    self::count(fired, count);
    full
}

/// Applies an event's action `f` (the new state from the state at the event) on the lanes
/// of `fired`; the others keep `y`. `f` runs only when some lane fired.
#[inline(always)]
pub fn modify<L: Lane, const N: usize>(
    fired: L::Mask,
    y: &mut [L; N],
    f: impl FnOnce(&[L; N]) -> [L; N],
) {
    if fired.any() {
        let new = f(y);
        for n in 0..N {
            y[n] = L::select(fired, new[n], y[n]);
        }
    }
}

/// The most root-finding iterations (steps) a problem's kernel spends locating one event:
/// enough for Illinois to reach any tolerance down to an ulp of `t` from a bracket of one
/// step.
pub const MAX_ITERATIONS: u32 = 64;

/// Adds one to `count` on the lanes of `fired` (a problem's `events` plane without a
/// record); nothing to do, and nothing done, when no lane fired.
#[inline(always)]
pub fn count<L: Lane>(fired: L::Mask, count: &mut L) {
    if fired.any() {
        *count += L::select(fired, lc::<L>(1.0), lc::<L>(0.0));
    }
}

/// `f(h)`, with `h` the shared `dt` itself where no lane's step is `last` (shortened to
/// land on `t_end`: there `h` holds the shortened steps). The values are the same either
/// way; a shared step lets the compiler compute what depends on it once per launch rather
/// than once per step (RK4's `h / 6`, a division).
#[inline(always)]
pub fn with_step<L: Lane, T>(last: L::Mask, dt: L, h: L, f: impl Fn(L) -> T) -> T {
    if last.any() { f(h) } else { f(dt) }
}

/// Each lane's next stop time after `t`: the smallest of `times` that is greater than
/// `t`, `+inf` when none is (a problem's discrete stops, `stop(times = S)`).
#[inline(always)]
pub fn next_stop<L: Lane, const S: usize>(times: &[L; S], t: L) -> L {
    let mut next = lc::<L>(f64::INFINITY);
    for &s in times {
        next = L::select(s.simd_gt(t) & s.simd_lt(next), s, next);
    }
    next
}
