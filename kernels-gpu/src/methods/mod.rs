//! Runge-Kutta methods for ensembles: a right-hand-side trait, fixed-step RK4, embedded
//! tableaus as `const` data (Tsitouras 5(4), Verner 7(6) and 9(8), Fehlberg 7(8),
//! Dormand-Prince 8(7)), a per-sample adaptive step, and the location of events inside
//! a step ([`events`]), fixed-step methods for stochastic differential equations
//! ([`sde`]) and linearly implicit methods for stiff systems ([`rosenbrock`]).
//!
//! Everything is generic over the [`Lane`] type, so the same code advances one
//! sample per GPU thread (`f64` lane) or several samples per host SIMD vector, with the same
//! bits. Per-sample decisions (accept or reject, landing on `t_end`, freezing finished
//! samples) are masks and [`Lane::select`].
//!
//! ```
//! use hawk::methods::{AdaptiveState, FEHLBERG78, Settings, StepControl, adaptive_step};
//!
//! // y' = -y on one f64 lane, to t = 1.
//! let f = |_t: f64, y: &[f64; 1]| [-y[0]];
//! let mut s = AdaptiveState::new(0.0, [1.0], 0.1);
//! let set = Settings { rtol: 1e-12, atol: 1e-12, t_end: 1.0 };
//! while !adaptive_step(&f, &FEHLBERG78, &mut s, &set, &StepControl::DEFAULT).terminated {}
//! assert_eq!(s.t, 1.0);
//! approx::assert_abs_diff_eq!(s.y[0], (-1.0f64).exp(), epsilon = 1e-12);
//! ```

mod adaptive;
mod control;
mod dormand_prince87;
pub mod events;
mod fehlberg78;
mod method;
mod rhs;
mod rk4;
pub mod rosenbrock;
pub mod sde;
mod tableau;
mod tsit5;
mod verner7;
mod verner9;

pub use adaptive::{
    AdaptiveState, Settings, StepLength, StepOutcome, adaptive_step, adaptive_step_to,
    adaptive_step_with, step_length,
};
pub use control::{Controller, PiControl, StepControl};
pub use dormand_prince87::DORMAND_PRINCE87;
pub use fehlberg78::FEHLBERG78;
pub use method::{AdaptiveMethod, Attempt, FixedMethod, RK4, Rk4};
pub use rhs::Rhs;
pub use rk4::{rk4_step, rk4_step_fma};
pub use tableau::{EmbeddedStep, Tableau, embedded_step};
pub use tsit5::TSIT5;
pub use verner7::VERN7;
pub use verner9::VERN9;

use crate::lane::{Lane, Real};

/// The lane value with every lane set to `v` (converted with [`Real::from_f64`]).
#[inline(always)]
pub fn splat_f64<L: Lane>(v: f64) -> L {
    L::splat(L::Elem::from_f64(v))
}

pub(crate) use splat_f64 as lc;
