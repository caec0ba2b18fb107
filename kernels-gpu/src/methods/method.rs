//! Methods as values: the two families of deterministic one-step methods as traits, so a
//! kernel (or a `#[problem]`) names a method by a value, the library's or a user's own, and
//! the family's step does the rest.
//!
//! - [`FixedMethod`]: one step of length `h` from `(t, y)`: [`RK4`], or any explicit
//!   [`Tableau`] stepped with its propagated weights.
//! - [`AdaptiveMethod`]: one attempted step with its error estimate, concluded by
//!   [`adaptive_step_to`](super::adaptive_step_to) (error norm, accept or reject, the
//!   controller's next step): any embedded [`Tableau`] (the explicit pairs, Verner's,
//!   yours), any [`RosenbrockTableau`](super::rosenbrock::RosenbrockTableau) and
//!   [`ROSENBROCK23`](super::rosenbrock::ROSENBROCK23) (these two ask the right-hand side
//!   for its Jacobian: [`Jacobian`](super::rosenbrock::Jacobian)).
//!
//! Both families have a continuous extension for event location: "a step of the same
//! method from the step's start" ([`AdaptiveMethod::attempt`] with a shorter `h`), so
//! events and stops wrap every method.
//!
//! ```
//! use hawk::methods::{AdaptiveMethod, FixedMethod, RK4, TSIT5, Tableau};
//!
//! // A user's own pair: Bogacki-Shampine 3(2), as a const like the library's.
//! const BS32: Tableau<4> = Tableau {
//!     name: "Bogacki-Shampine 3(2)",
//!     c: [0.0, 0.5, 0.75, 1.0],
//!     a: [
//!         [0.0; 4],
//!         [0.5, 0.0, 0.0, 0.0],
//!         [0.0, 0.75, 0.0, 0.0],
//!         [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0],
//!     ],
//!     b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0],
//!     b_embedded: [7.0 / 24.0, 0.25, 1.0 / 3.0, 0.125],
//!     order: 3,
//!     embedded_order: 2,
//! };
//! let f = |_t: f64, y: &[f64; 1]| [-y[0]];
//! let one = FixedMethod::step(&RK4, &f, 0.0, &[1.0], 0.1);
//! let a = AdaptiveMethod::attempt(&BS32, &f, 0.0, &[1.0], 0.1, 0.1);
//! let b = AdaptiveMethod::attempt(&TSIT5, &f, 0.0, &[1.0], 0.1, 0.1);
//! assert!((one[0] - (-0.1f64).exp()).abs() < 1e-6);
//! assert!((a.y[0] - (-0.1f64).exp()).abs() < 1e-4 && a.err[0] != 0.0);
//! assert!((b.y[0] - (-0.1f64).exp()).abs() < 1e-9);
//! ```

use super::tableau::{Tableau, embedded_step};
use super::{Rhs, rk4_step, rk4_step_fma};
use crate::lane::{Lane, Mask};

/// What one attempted step of an [`AdaptiveMethod`] gives, per lane.
#[derive(Clone, Copy, Debug)]
pub struct Attempt<L: Lane, const N: usize> {
    /// The propagated solution at the step's end.
    pub y: [L; N],
    /// The error estimate (propagated minus embedded solution, or the method's own).
    pub err: [L; N],
    /// Lanes whose step could not be formed (an implicit method's singular matrix): they
    /// are rejected whatever `err` says.
    pub singular: L::Mask,
}

/// An adaptive method: one attempted step of length `h` from `(t, y)` with an error
/// estimate of order `error_order`, for right-hand sides of type `F`.
///
/// `t_new` is the step's end as the caller computed it (`t + h`, or exactly the landing
/// time where the step was clipped to one): a method that evaluates `f` at the step's end
/// uses it, so a landing step evaluates there exactly. The attempt must not depend on
/// anything but its arguments (no state between calls), and must be total (no panic on
/// any lane, NaN included).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an adaptive method for this right-hand side",
    label = "an adaptive method here",
    note = "adaptive methods are embedded pairs (`hawk::methods::Tableau`) and Rosenbrock \
            methods (`hawk::methods::rosenbrock::RosenbrockTableau`, `ROSENBROCK23`), whose \
            right-hand side must implement `Jacobian`; a fixed-step method goes in \
            `method = fixed(..)`"
)]
pub trait AdaptiveMethod<L: Lane, const N: usize, F> {
    /// The order `q` of the error estimate (the controller's exponent is `-1/(q+1)`).
    fn error_order(&self) -> u32;
    /// One attempted step (see the trait docs).
    fn attempt(&self, f: &F, t: L, y: &[L; N], h: L, t_new: L) -> Attempt<L, N>;
}

/// A fixed-step method: one step of length `h` from `(t, y)`, for right-hand sides of type
/// `F`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fixed-step method for this right-hand side",
    label = "a fixed-step method here",
    note = "fixed-step methods are `hawk::methods::RK4` and explicit `Tableau`s"
)]
pub trait FixedMethod<L: Lane, const N: usize, F> {
    /// One step: the state at `t + h`.
    fn step(&self, f: &F, t: L, y: &[L; N], h: L) -> [L; N];
    /// [`FixedMethod::step`] with the method's own updates fused (a kernel's `contract`
    /// setting); by default the same as `step`.
    #[inline(always)]
    fn step_fused(&self, f: &F, t: L, y: &[L; N], h: L) -> [L; N] {
        self.step(f, t, y, h)
    }
}

/// The classic fourth-order Runge-Kutta method, as a value ([`RK4`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rk4;

/// The classic fourth-order Runge-Kutta method: [`rk4_step`], and [`rk4_step_fma`] fused.
pub const RK4: Rk4 = Rk4;

impl<L: Lane, const N: usize, F: Rhs<L, N>> FixedMethod<L, N, F> for Rk4 {
    #[inline(always)]
    fn step(&self, f: &F, t: L, y: &[L; N], h: L) -> [L; N] {
        rk4_step(f, t, y, h)
    }

    #[inline(always)]
    fn step_fused(&self, f: &F, t: L, y: &[L; N], h: L) -> [L; N] {
        rk4_step_fma(f, t, y, h)
    }
}

impl<L: Lane, const N: usize, const S: usize, F: Rhs<L, N>> FixedMethod<L, N, F> for Tableau<S> {
    #[inline(always)]
    fn step(&self, f: &F, t: L, y: &[L; N], h: L) -> [L; N] {
        embedded_step(f, self, t, y, h).y
    }
}

impl<L: Lane, const N: usize, const S: usize, F: Rhs<L, N>> AdaptiveMethod<L, N, F> for Tableau<S> {
    #[inline(always)]
    fn error_order(&self) -> u32 {
        Tableau::error_order(self)
    }

    #[inline(always)]
    fn attempt(&self, f: &F, t: L, y: &[L; N], h: L, _t_new: L) -> Attempt<L, N> {
        let s = embedded_step(f, self, t, y, h);
        Attempt {
            y: s.y,
            err: s.err,
            singular: L::Mask::splat(false),
        }
    }
}
