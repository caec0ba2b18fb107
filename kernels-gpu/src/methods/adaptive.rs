//! One attempted adaptive step per call, per sample, with an embedded pair.

use super::tableau::{Tableau, embedded_step};
use super::{Rhs, lc};
use crate::lane::{Lane, Mask};

/// Step-size controller constants, shared by all samples (plain `f64`, converted per use).
///
/// The new step is `h * clamp(safety * norm^(-1/(q+1)), fac_min, fac_max)`, where `norm` is
/// the scaled RMS error of the attempted step and `q` the lower order of the pair
/// ([`Tableau::error_order`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepControl {
    /// Safety factor applied to the optimal step (default `0.9`).
    pub safety: f64,
    /// Smallest factor a step may shrink by in one attempt (default `0.2`). Also the factor
    /// used when the error norm is NaN (non-finite stages).
    pub fac_min: f64,
    /// Largest factor a step may grow by in one attempt (default `5.0`).
    pub fac_max: f64,
    /// Relative step floor: a sample whose next `h` falls below
    /// `h_floor_rel * max(|t|, 1)` is reported as collapsed (default `1e-14`, meant for
    /// `f64`; use about `1e-6` with `f32` lanes).
    pub h_floor_rel: f64,
}

impl StepControl {
    /// The documented defaults: safety 0.9, factors in `[0.2, 5.0]`, floor `1e-14`.
    pub const DEFAULT: StepControl = StepControl {
        safety: 0.9,
        fac_min: 0.2,
        fac_max: 5.0,
        h_floor_rel: 1e-14,
    };
}

impl Default for StepControl {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Per-sample settings of an adaptive integration, as lane values (they may differ between
/// the samples of a group).
#[derive(Clone, Copy, Debug)]
pub struct Settings<L> {
    /// Relative tolerance.
    pub rtol: L,
    /// Absolute tolerance.
    pub atol: L,
    /// The time at which the sample ends; the last step lands on it exactly.
    pub t_end: L,
}

/// Per-sample state of an adaptive integration, as lane values.
///
/// The counters are lane values too (exact up to `2^53` steps in `f64`, `2^24` in `f32`).
#[derive(Clone, Copy, Debug)]
pub struct AdaptiveState<L, const N: usize> {
    /// Current time.
    pub t: L,
    /// Current state.
    pub y: [L; N],
    /// The step the next attempt will try (before clipping to `t_end`).
    pub h: L,
    /// Accepted steps so far.
    pub accepted: L,
    /// Rejected attempts so far.
    pub rejected: L,
}

impl<L: Lane, const N: usize> AdaptiveState<L, N> {
    /// A state at `(t, y)` that will first try step `h`, with both counters zero.
    pub fn new(t: L, y: [L; N], h: L) -> Self {
        let zero = lc::<L>(0.0);
        AdaptiveState {
            t,
            y,
            h,
            accepted: zero,
            rejected: zero,
        }
    }
}

/// What one call of [`adaptive_step`] did, per lane.
#[derive(Clone, Copy, Debug)]
pub struct StepOutcome<M> {
    /// `t >= t_end` after the call: the sample is done (also set for samples that were done
    /// before the call).
    pub terminated: M,
    /// The attempted step was accepted (`t` and `y` advanced).
    pub accepted: M,
    /// The attempted step was rejected (`t` and `y` unchanged, `h` reduced).
    pub rejected: M,
    /// The sample is not done and its next `h` is below the floor
    /// `h_floor_rel * max(|t|, 1)` (or is NaN): the integration cannot make progress.
    pub collapsed: M,
    /// The attempted step produced a NaN or infinite state (the step was rejected).
    pub non_finite: M,
    /// The step's linear system was singular (Rosenbrock methods, [`super::rosenbrock`];
    /// never set by the embedded pairs): the step was rejected.
    pub singular: M,
}

/// `x^(-1/m)`. For `m` a power of two (Fehlberg 7(8): `m = 8`) this is `1 / sqrt(...sqrt(x))`,
/// which vectorizes (a per-lane `powf` is a scalar libm call per lane); otherwise `powf`.
/// The two differ from each other by an ulp or so, never between lane types.
#[inline(always)]
fn inv_root<L: Lane>(x: L, m: u32) -> L {
    if m.is_power_of_two() {
        let mut r = x;
        for _ in 0..m.trailing_zeros() {
            r = r.sqrt();
        }
        lc::<L>(1.0) / r
    } else {
        x.powf(lc::<L>(-1.0 / m as f64))
    }
}

/// The step [`adaptive_step_to`] attempts from `t` with proposed step `h`, per lane.
#[derive(Clone, Copy, Debug)]
pub struct StepLength<L: Lane> {
    /// The step's length: `h`, or less where it lands on `t_end` or the next save time.
    pub step: L,
    /// The time at the step's end: the landing time itself where it lands, else `t + h`.
    pub t_new: L,
    /// Lanes whose step lands on `t_end` or the next save time.
    pub last: L::Mask,
    /// Lanes whose landing time is the next save time (before `t_end`, after `t`).
    pub at_save: L::Mask,
}

/// The step [`adaptive_step_to`] takes from `t` with proposed step `h`: clipped to land on
/// the next save time (where it lies after `t` and before `t_end`) or on `t_end`. Event
/// location ([`super::events`]) recomputes the attempted step with it, bit for bit.
#[inline(always)]
pub fn step_length<L: Lane>(t: L, h: L, t_end: L, next_save: L) -> StepLength<L> {
    // Where a save time comes before `t_end` (and after `t`), the step stops there.
    let at_save = next_save.simd_lt(t_end) & next_save.simd_gt(t);
    let stop = L::select(at_save, next_save, t_end);
    let remaining = stop - t;
    let last = h.simd_ge(remaining);
    let step = L::select(last, remaining, h);
    let t_new = L::select(last, stop, t + step);
    StepLength {
        step,
        t_new,
        last,
        at_save,
    }
}

/// One attempted adaptive step of every sample of the group that is not done yet.
///
/// Per sample, where `t < t_end` (the sample is *active*):
/// 1. The step is clipped to land on `t_end`: where `h >= t_end - t`, the step is
///    `t_end - t` and the new time is `t_end` itself (not `t + (t_end - t)`, which may round
///    to a neighbour), else the step is `h` and the new time `t + h`.
/// 2. The pair `tab` is applied once ([`embedded_step`]), propagating `b`.
/// 3. The error norm is the RMS over components of
///    `err_i / (atol + rtol * max(|y_i|, |y_new_i|))` (Hairer's scaling with the larger of
///    the old and new magnitudes).
/// 4. The step is accepted where `norm <= 1` and every component of the new state is
///    finite; then `t`, `y` take their new values and `accepted` grows by one, otherwise
///    `rejected` grows by one.
/// 5. Accepted or not, `h` becomes `step * clamp(safety * norm^(-1/(q+1)), fac_min,
///    fac_max)`, with `q` = [`Tableau::error_order`] (the root by repeated `sqrt` when
///    `q + 1` is a power of two, see `inv_root`). A zero norm gives `fac_max`, a NaN
///    norm `fac_min` (the clamp uses IEEE min/max, which drop a NaN operand). After a clipped
///    final step the stored `h` is based on that shorter step; it is not used again.
///
/// Samples with `t >= t_end` (or a NaN `t`) are not changed at all: every field is selected
/// back lane by lane. The right-hand side is still evaluated on their lanes (results
/// discarded), so it must not panic on any input.
///
/// No step stretching to avoid a tiny final step, no first-same-as-last reuse and no
/// step-size memory (PI control): the whole state is the fields of [`AdaptiveState`].
#[inline(always)]
pub fn adaptive_step<L: Lane, F: Rhs<L, N>, const N: usize, const S: usize>(
    f: &F,
    tab: &Tableau<S>,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &StepControl,
) -> StepOutcome<L::Mask> {
    let none = L::splat(<L::Elem as crate::lane::Real>::from_f64(f64::INFINITY));
    adaptive_step_to(f, tab, state, settings, ctl, none)
}

/// [`adaptive_step`] that also lands exactly on `next_save`, each lane's next save time
/// (the kernel's `NextSave` argument, `+inf` when none): the step is clipped to it as it is
/// to `t_end` (where `next_save <= t`, it is ignored). With `next_save = +inf` this is
/// [`adaptive_step`], bit for bit.
///
/// Where an accepted step was shortened to land on a save time (not on `t_end`), the next
/// attempt tries the unclipped `h` again (the controller's proposal from the clipped step is
/// dropped unless it is larger): saving then only inserts the clipped steps into the
/// sequence, it does not make the integration take smaller steps afterwards.
///
/// Why not interpolate between steps instead (dense output)? Interpolated points are less
/// accurate than the method's steps (the interpolant's order is lower for most pairs, and
/// Fehlberg 7(8) and Dormand-Prince 8(7) have none without extra stages), and they are not
/// the state of any step the method took: landing exactly makes a saved point a state of the
/// integration itself (time exactly the save time, the method's full accuracy, the same bits
/// on every team and lane width), at the cost of one shorter step per save time.
#[inline(always)]
pub fn adaptive_step_to<L: Lane, F: Rhs<L, N>, const N: usize, const S: usize>(
    f: &F,
    tab: &Tableau<S>,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &StepControl,
    next_save: L,
) -> StepOutcome<L::Mask> {
    let len = step_length(state.t, state.h, settings.t_end, next_save);
    let s = embedded_step(f, tab, state.t, &state.y, len.step);
    let none = L::Mask::splat(false);
    conclude(
        state,
        settings,
        ctl,
        &len,
        &s.y,
        &s.err,
        tab.error_order(),
        none,
    )
}

/// The second half of an adaptive attempt, shared by the embedded pairs and the Rosenbrock
/// methods: from the attempted step's new state `y_new` and error estimate `err`, steps 3
/// to 5 of [`adaptive_step`] (norm, accept or reject, the next `h`, the counters) with
/// `error_order` as `q`. Lanes in `singular` (the step's linear system could not be
/// solved) are rejected and reported as such.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn conclude<L: Lane, const N: usize>(
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &StepControl,
    len: &StepLength<L>,
    y_new: &[L; N],
    err: &[L; N],
    error_order: u32,
    singular: L::Mask,
) -> StepOutcome<L::Mask> {
    let (t, y, h) = (state.t, state.y, state.h);
    let (zero, one) = (lc::<L>(0.0), lc::<L>(1.0));
    let active = t.simd_lt(settings.t_end);
    let StepLength {
        step,
        t_new,
        last,
        at_save,
    } = *len;

    let mut finite = L::Mask::splat(true);
    let mut sum = zero;
    for n in 0..N {
        let scale = settings.atol + settings.rtol * y[n].abs().max(y_new[n].abs());
        let r = err[n] / scale;
        sum += r * r;
        finite &= y_new[n].is_finite();
    }
    let norm = (sum / lc::<L>(N as f64)).sqrt();

    let ok = norm.simd_le(one) & finite & !singular;
    let accept = active & ok;
    let reject = active & !ok;

    let factor = (lc::<L>(ctl.safety) * inv_root(norm, error_order + 1))
        .max(lc::<L>(ctl.fac_min))
        .min(lc::<L>(ctl.fac_max));
    let h_new = step * factor;

    state.t = L::select(accept, t_new, t);
    for n in 0..N {
        state.y[n] = L::select(accept, y_new[n], y[n]);
    }
    // A step shortened to a save time: try the unclipped `h` next (unless the clipped
    // step proposes more).
    let to_save = accept & last & at_save;
    let h_new = L::select(to_save, h_new.max(h), h_new);
    state.h = L::select(active, h_new, h);
    state.accepted += L::select(accept, one, zero);
    state.rejected += L::select(reject, one, zero);

    let terminated = state.t.simd_ge(settings.t_end);
    let floor = lc::<L>(ctl.h_floor_rel) * state.t.abs().max(one);
    let collapsed = active & !terminated & !h_new.simd_ge(floor);
    StepOutcome {
        terminated,
        accepted: accept,
        rejected: reject,
        collapsed,
        non_finite: active & !finite,
        singular: active & singular,
    }
}
