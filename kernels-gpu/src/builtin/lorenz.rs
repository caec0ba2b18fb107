//! The Lorenz ensemble in the community's benchmark setup (DiffEqGPU.jl's): rho per sample
//! (`linspace(0, 21, N)`), sigma 10, beta 8/3, u0 = (1, 0, 0), t in [0, 1]; fixed-step RK4
//! at dt = 1e-3 and adaptive Fehlberg 7(8) at rtol = atol = 1e-8, in f64 and f32.

use crate::methods::{
    AdaptiveState, FEHLBERG78, Settings, StepControl, adaptive_step, rk4_step_fma,
};
use crate::prelude::*;

/// The Lorenz right-hand side for one lane group.
#[inline(always)]
pub fn lorenz_rhs<L: Lane>(sigma: L, rho: L, beta: L) -> impl Fn(L, &[L; 3]) -> [L; 3] {
    move |_t, u| {
        [
            sigma * (u[1] - u[0]),
            // x (rho - z) - y, fused: one rounding less and a shorter dependency chain.
            u[0].mul_add(rho - u[2], -u[1]),
            u[0] * u[1] - beta * u[2],
        ]
    }
}

macro_rules! lorenz_rk4 {
    ($name:ident, $real:literal) => {
        /// Lorenz with classic RK4 at a fixed `dt`, until `t >= t_end - dt/2` (so exactly
        /// `round(t_end / dt)` steps whatever the rounding of `t`).
        #[kernel(steps = "auto", real = $real)]
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
            let f = lorenz_rhs(sigma, rho, beta);
            let u = rk4_step_fma(&f, *t, &[*x, *y, *z], dt);
            *x = u[0];
            *y = u[1];
            *z = u[2];
            *t += dt;
            *terminated = t.simd_ge(t_end - dt * Scalar::splat(0.5));
        }
    };
}
lorenz_rk4!(lorenz_rk4, "f64");
lorenz_rk4!(lorenz_rk4_f32, "f32");

macro_rules! lorenz_rk78 {
    ($name:ident, $real:literal) => {
        /// Lorenz with adaptive Fehlberg 7(8) (order-8 solution propagated): one attempted
        /// step per kernel step, per-sample `h`, accepted and rejected counts; a sample whose
        /// step size collapses is flagged `failed`.
        #[kernel(steps = "auto", real = $real)]
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
            let out = adaptive_step(&f, &FEHLBERG78, &mut s, &settings, &StepControl::DEFAULT);
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
lorenz_rk78!(lorenz_rk78, "f64");
lorenz_rk78!(lorenz_rk78_f32, "f32");
