//! The Lorenz ensemble in the community's benchmark setup (DiffEqGPU.jl's): rho per sample
//! (`linspace(0, 21, N)`), sigma 10, beta 8/3, u0 = (1, 0, 0), t in [0, 1]; fixed-step RK4
//! at dt = 1e-3 and adaptive Fehlberg 7(8) at rtol = atol = 1e-8, in f64 and f32; and
//! Verner 9(8), the method for tight tolerances (the card runs it and Fehlberg 7(8) at
//! 1e-12).

use crate::methods::{
    AdaptiveState, FEHLBERG78, Settings, StepControl, VERN9, adaptive_step_to, rk4_step_fma,
};
use crate::prelude::*;

/// The Lorenz right-hand side `$name`, with attributes `$attr`: one text for the plain and
/// the contracted function.
macro_rules! lorenz_rhs {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[inline(always)]
        pub fn $name<L: Lane>(sigma: L, rho: L, beta: L) -> impl Fn(L, &[L; 3]) -> [L; 3] {
            move |_t, u| {
                [
                    sigma * (u[1] - u[0]),
                    // x (rho - z) - y, fused: one rounding less and a shorter dependency
                    // chain.
                    u[0].mul_add(rho - u[2], -u[1]),
                    u[0] * u[1] - beta * u[2],
                ]
            }
        }
    };
}
lorenz_rhs!(
    /// The Lorenz right-hand side for one lane group.
    lorenz_rhs
);
lorenz_rhs!(
    /// [`lorenz_rhs`] contracted: `x y - beta z` is one fused multiply-subtract too.
    #[contract]
    lorenz_rhs_contracted
);

macro_rules! lorenz_rk4 {
    ($name:ident, $real:literal, $rhs:ident $(, $setting:tt)?) => {
        /// Lorenz with classic RK4 at a fixed `dt`, until `t >= t_end - dt/2` (so exactly
        /// `round(t_end / dt)` steps whatever the rounding of `t`); the stage updates and
        /// the combination fused. The `_contracted` kernels are `#[kernel(contract)]` and
        /// call [`lorenz_rhs_contracted`]: one fused multiply-add more per evaluation, the
        /// same FLOPs.
        #[kernel(host_code = "where_used", steps = "auto", real = $real, time = t $(, $setting)?)]
        pub fn $name(
            rho: Scalar,
            sigma: Param,
            beta: Param,
            dt: Param,
            t_end: Param,
            terminated: &mut Terminated,
            x: &mut Scalar,
            y: &mut Scalar,
            z: &mut Scalar,
            t: &mut Scalar,
        ) {
            let f = $rhs(sigma, rho, beta);
            let u = rk4_step_fma(&f, *t, &[*x, *y, *z], dt);
            *x = u[0];
            *y = u[1];
            *z = u[2];
            *t += dt;
            *terminated = t.simd_ge(t_end - dt * Scalar::splat(0.5));
        }
    };
}
lorenz_rk4!(lorenz_rk4, "f64", lorenz_rhs);
lorenz_rk4!(lorenz_rk4_f32, "f32", lorenz_rhs);
lorenz_rk4!(
    lorenz_rk4_contracted,
    "f64",
    lorenz_rhs_contracted,
    contract
);
lorenz_rk4!(
    lorenz_rk4_f32_contracted,
    "f32",
    lorenz_rhs_contracted,
    contract
);

macro_rules! lorenz_adaptive {
    ($name:ident, $real:literal, $method:expr, $which:literal) => {
        #[doc = concat!("Lorenz with adaptive ", $which, ": one attempted")]
        /// step per kernel step, per-sample `h`, accepted and rejected counts; a sample whose
        /// step size collapses is flagged `failed`. Steps land exactly on save times.
        #[kernel(host_code = "where_used", steps = "auto", real = $real, time = t)]
        pub fn $name(
            rho: Scalar,
            sigma: Param,
            beta: Param,
            t_end: Param,
            rtol: Param,
            atol: Param,
            terminated: &mut Terminated,
            failed: &mut Failed,
            x: &mut Scalar,
            y: &mut Scalar,
            z: &mut Scalar,
            t: &mut Scalar,
            h: &mut Scalar,
            accepted: &mut Scalar,
            rejected: &mut Scalar,
            next_save: NextSave,
        ) {
            let f = lorenz_rhs(sigma, rho, beta);
            let mut s = AdaptiveState {
                t: *t,
                y: [*x, *y, *z],
                h: *h,
                accepted: *accepted,
                rejected: *rejected,
            };
            let settings = Settings { rtol, atol, t_end };
            let ctl = StepControl::DEFAULT;
            let out = adaptive_step_to(&f, &$method, &mut s, &settings, &ctl, next_save);
            *x = s.y[0];
            *y = s.y[1];
            *z = s.y[2];
            *t = s.t;
            *h = s.h;
            *accepted = s.accepted;
            *rejected = s.rejected;
            *terminated = out.terminated;
            *failed = out.collapsed;
        }
    };
}
lorenz_adaptive!(
    lorenz_rk78,
    "f64",
    FEHLBERG78,
    "Fehlberg 7(8) (order-8 solution propagated)"
);
lorenz_adaptive!(
    lorenz_rk78_f32,
    "f32",
    FEHLBERG78,
    "Fehlberg 7(8) (order-8 solution propagated)"
);
lorenz_adaptive!(
    lorenz_vern9,
    "f64",
    VERN9,
    "Verner 9(8) (order-9 solution propagated)"
);
