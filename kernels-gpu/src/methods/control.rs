//! Step-size controllers as values: how an adaptive method's next step follows from the
//! error norm of the attempt. [`StepControl`] (the default, an integral controller) and
//! [`PiControl`] (a proportional-integral controller with one lane value of memory per
//! sample) implement [`Controller`]; a user's own controller is an impl of it.

use super::lc;
use crate::lane::Lane;

/// A step-size controller: the factor by which an attempted step's length becomes the next
/// proposed step, per lane.
///
/// `norm` is the attempt's scaled RMS error (accepted where `norm <= 1`), `error_order` the
/// method's `q` (the lower order of an embedded pair), `accept` the lanes whose attempt was
/// accepted, and `memory` one lane value per sample kept between steps (a `#[problem]` with
/// `controller = ...` keeps it in the plane `err_prev`, zero at the start; a controller
/// without memory leaves it alone). The factor must be positive where `norm` is finite; a
/// NaN `norm` (non-finite stages) must give a factor below one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a step-size controller",
    note = "a controller is a value whose type implements hawk::methods::Controller, such as \
            hawk::methods::StepControl or hawk::methods::PiControl"
)]
pub trait Controller {
    /// The next step's factor per lane; may update `memory` (see the trait docs).
    fn factor<L: Lane>(&self, norm: L, error_order: u32, accept: L::Mask, memory: &mut L) -> L;
    /// Relative step floor: a sample whose next step falls below
    /// `h_floor_rel * max(|t|, 1)` is reported as collapsed.
    fn h_floor_rel(&self) -> f64;
}

/// Step-size controller constants, shared by all samples (plain `f64`, converted per use):
/// the integral controller every adaptive method uses by default.
///
/// The new step is `h * clamp(safety * norm^(-1/(q+1)), fac_min, fac_max)`, where `norm` is
/// the scaled RMS error of the attempted step and `q` the lower order of the pair
/// ([`Tableau::error_order`](super::Tableau::error_order)).
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

impl Controller for StepControl {
    #[inline(always)]
    fn factor<L: Lane>(&self, norm: L, error_order: u32, _accept: L::Mask, _memory: &mut L) -> L {
        (lc::<L>(self.safety) * inv_root(norm, error_order + 1))
            .max(lc::<L>(self.fac_min))
            .min(lc::<L>(self.fac_max))
    }

    fn h_floor_rel(&self) -> f64 {
        self.h_floor_rel
    }
}

/// A proportional-integral step-size controller (K. Gustafsson, "Control theoretic
/// techniques for stepsize selection in explicit Runge-Kutta methods", ACM TOMS 17 (1991)
/// 533-554; E. Hairer, S. P. Norsett and G. Wanner, *Solving Ordinary Differential
/// Equations I*, 2nd ed., Springer 1993, section IV.2, "Stabilized step size control";
/// G. Söderlind, "Digital filters in adaptive time-stepping", ACM TOMS 29 (2003) 1-26).
///
/// With `k = q + 1` and `prev` the memory (the last accepted step's norm, floored at
/// `1e-4`; zero at the start also reads as `1e-4`, as Hairer's codes begin):
/// - after an accepted attempt, the factor is
///   `clamp(safety * norm^(-beta1/k) * prev^(beta2/k), fac_min, fac_max)` and the memory
///   becomes `max(norm, 1e-4)`;
/// - after a rejected one, `clamp(safety * norm^(-beta1/k), fac_min, fac_max)` (the
///   integral part alone; the memory is kept).
///
/// `beta2 = 0` with `beta1 = 1` is [`StepControl`] up to rounding (it uses `powf` where
/// [`StepControl`] may take repeated square roots). Gustafsson's values `beta1 = 0.7`,
/// `beta2 = 0.4` ([`PiControl::GUSTAFSSON`]) damp the step-size oscillation an integral
/// controller shows where stability, not accuracy, limits the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PiControl {
    /// Safety factor (Gustafsson: `0.9`).
    pub safety: f64,
    /// Smallest factor per attempt (`0.2`); also the factor for a NaN norm.
    pub fac_min: f64,
    /// Largest factor per attempt (`5.0`).
    pub fac_max: f64,
    /// The integral gain, in units of `1/(q+1)` (`0.7`).
    pub beta1: f64,
    /// The proportional gain on the previous norm, in units of `1/(q+1)` (`0.4`).
    pub beta2: f64,
    /// Relative step floor, as [`StepControl::h_floor_rel`] (`1e-14`).
    pub h_floor_rel: f64,
}

impl PiControl {
    /// Gustafsson's gains `beta1 = 0.7`, `beta2 = 0.4` with [`StepControl::DEFAULT`]'s
    /// safety, factor limits and floor.
    pub const GUSTAFSSON: PiControl = PiControl {
        safety: 0.9,
        fac_min: 0.2,
        fac_max: 5.0,
        beta1: 0.7,
        beta2: 0.4,
        h_floor_rel: 1e-14,
    };
}

/// The smallest norm a PI controller remembers (Hairer's `facold` floor).
const PI_FLOOR: f64 = 1e-4;

impl Controller for PiControl {
    #[inline(always)]
    fn factor<L: Lane>(&self, norm: L, error_order: u32, accept: L::Mask, memory: &mut L) -> L {
        let k = (error_order + 1) as f64;
        let floor = lc::<L>(PI_FLOOR);
        let integral = lc::<L>(self.safety) * norm.powf(lc::<L>(-self.beta1 / k));
        let prev = memory.max(floor);
        let pi = integral * prev.powf(lc::<L>(self.beta2 / k));
        let raw = L::select(accept, pi, integral);
        *memory = L::select(accept, norm.max(floor), *memory);
        raw.max(lc::<L>(self.fac_min)).min(lc::<L>(self.fac_max))
    }

    fn h_floor_rel(&self) -> f64 {
        self.h_floor_rel
    }
}

/// `x^(-1/m)`. For `m` a power of two (Fehlberg 7(8): `m = 8`) this is `1 / sqrt(...sqrt(x))`,
/// which vectorizes (a per-lane `powf` is a scalar libm call per lane); otherwise `powf`.
/// The two differ from each other by an ulp or so, never between lane types.
#[inline(always)]
pub(crate) fn inv_root<L: Lane>(x: L, m: u32) -> L {
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
