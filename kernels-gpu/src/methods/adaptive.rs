//! One attempted adaptive step per call, per sample, with any [`AdaptiveMethod`] and any
//! [`Controller`].

use super::control::Controller;
use super::lc;
use super::method::AdaptiveMethod;
use crate::lane::{Lane, Mask};

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
/// 2. The method is applied once ([`AdaptiveMethod::attempt`]; for a
///    [`Tableau`](super::Tableau), [`embedded_step`](super::embedded_step), propagating `b`).
/// 3. The error norm is the RMS over components of
///    `err_i / (atol + rtol * max(|y_i|, |y_new_i|))` (Hairer's scaling with the larger of
///    the old and new magnitudes).
/// 4. The step is accepted where `norm <= 1` and every component of the new state is
///    finite; then `t`, `y` take their new values and `accepted` grows by one, otherwise
///    `rejected` grows by one.
/// 5. Accepted or not, `h` becomes `step * factor`, the controller's factor
///    ([`Controller::factor`]); with [`StepControl`](super::StepControl) that is
///    `clamp(safety * norm^(-1/(q+1)), fac_min, fac_max)`, with `q` =
///    [`AdaptiveMethod::error_order`] (the root by repeated `sqrt` when `q + 1` is a power
///    of two). A zero norm gives `fac_max`, a NaN norm `fac_min` (the clamp uses IEEE
///    min/max, which drop a NaN operand). After a clipped final step the stored `h` is
///    based on that shorter step; it is not used again.
///
/// Samples with `t >= t_end` (or a NaN `t`) are not changed at all: every field is selected
/// back lane by lane. The right-hand side is still evaluated on their lanes (results
/// discarded), so it must not panic on any input.
///
/// No step stretching to avoid a tiny final step and no first-same-as-last reuse; a
/// controller with memory (PI control) keeps it in [`adaptive_step_with`]'s `memory`.
#[inline(always)]
pub fn adaptive_step<L: Lane, F, M: AdaptiveMethod<L, N, F>, C: Controller, const N: usize>(
    f: &F,
    method: &M,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
) -> StepOutcome<L::Mask> {
    let none = L::splat(<L::Elem as crate::lane::Real>::from_f64(f64::INFINITY));
    adaptive_step_to(f, method, state, settings, ctl, none)
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
pub fn adaptive_step_to<L: Lane, F, M: AdaptiveMethod<L, N, F>, C: Controller, const N: usize>(
    f: &F,
    method: &M,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
    next_save: L,
) -> StepOutcome<L::Mask> {
    let mut memory = lc::<L>(0.0);
    adaptive_step_with(f, method, state, settings, ctl, next_save, &mut memory)
}

/// [`adaptive_step_to`] with the controller's memory (one lane value per sample, kept by
/// the caller between steps, zero at the start; [`PiControl`](super::PiControl) keeps the
/// last accepted norm there). With a controller without memory, the same bits as
/// [`adaptive_step_to`].
#[inline(always)]
pub fn adaptive_step_with<L: Lane, F, M: AdaptiveMethod<L, N, F>, C: Controller, const N: usize>(
    f: &F,
    method: &M,
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
    next_save: L,
    memory: &mut L,
) -> StepOutcome<L::Mask> {
    let len = step_length(state.t, state.h, settings.t_end, next_save);
    let s = method.attempt(f, state.t, &state.y, len.step, len.t_new);
    conclude(state, settings, ctl, &len, &s, method.error_order(), memory)
}

/// The second half of an adaptive attempt, for every method: from the attempt's new state
/// and error estimate, steps 3 to 5 of [`adaptive_step`] (norm, accept or reject, the next
/// `h`, the counters) with `error_order` as `q`. Lanes whose attempt is `singular` (the
/// step's linear system could not be solved) are rejected and reported as such.
#[inline(always)]
fn conclude<L: Lane, C: Controller, const N: usize>(
    state: &mut AdaptiveState<L, N>,
    settings: &Settings<L>,
    ctl: &C,
    len: &StepLength<L>,
    attempt: &super::method::Attempt<L, N>,
    error_order: u32,
    memory: &mut L,
) -> StepOutcome<L::Mask> {
    let (y_new, err, singular) = (&attempt.y, &attempt.err, attempt.singular);
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

    // Inactive lanes keep their memory: the controller sees them as rejected.
    let factor = ctl.factor(norm, error_order, accept, memory);
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
    let floor = lc::<L>(ctl.h_floor_rel()) * state.t.abs().max(one);
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
