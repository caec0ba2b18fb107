//! Kernels of eagle's own tests, built for the GPU by `eagle-test-support`'s build.rs with
//! eagle-build, exactly as a user's kernel crate is: so the emulated device runs them from
//! a module that really holds their entries.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]
//!
//! Host speed does not matter here: a kernel has every host loop (what `lanes: auto`
//! tunes) only where a test runs it at every lane width of the instruction set (`wobble`,
//! `ball`, `gbm_em`, `robertson`); the others have the portable loops alone (`host_loops =
//! "portable"`, a third of the build time; the same bits). A kernel's host loops are
//! compiled here, in this crate, whether a test runs them or not; the kernels only the
//! GPU tests use (the Lorenz-96 rings, the watched Kepler orbits and HIRES, for their
//! registers) are `host_code = "where_used"`: no host loops at all, since no test runs
//! them on the host.

use hawk::prelude::*;

/// A test kernel with every way to stop: it finishes at `t >= 1`, the kernel flags it
/// failed at `t >= fail_at`, and a growth factor `g` of 1e200 makes `x` overflow to
/// infinity within two steps (NaN follows from `inf - inf`).
#[kernel(steps = "auto")]
pub fn wobble(
    g: Scalar,
    fail_at: Scalar,
    dt: Param,
    terminated: &mut Terminated,
    failed: &mut Failed,
    x: &mut Scalar,
    v: &mut Scalar,
    t: &mut Scalar,
) {
    let x0 = *x;
    *x = x0 * g + dt * *v;
    *v -= dt * x0 * g;
    *t += dt;
    *failed = t.simd_ge(fail_at);
    *terminated = t.simd_ge(Scalar::splat(1.0));
}

/// Lorenz-96's right-hand side on a ring of `N` sites (as `hawk::builtin::lorenz96_rhs`).
#[inline(always)]
pub fn ring_rhs<L: Lane, const N: usize>(forcing: L, u: &[L; N]) -> [L; N] {
    core::array::from_fn(|i| {
        (u[(i + 1) % N] - u[(i + N - 2) % N]) * u[(i + N - 1) % N] - u[i] + forcing
    })
}

/// One ring problem per method, element type and size, for the table of registers and
/// spills per method (tests/it/register_table.rs): how large a state fits a GPU thread.
macro_rules! rings {
    ($($name:ident: $method:literal, $real:literal, $n:literal;)*) => {$(
        #[doc = concat!("Lorenz-96 on ", stringify!($n), " sites, ", $method, ", ", $real, ".")]
        #[problem(method = $method, real = $real, host_code = "where_used")]
        pub fn $name(t: Scalar, u: &[Scalar; $n], forcing: Scalar) -> [Scalar; $n] {
            let _ = t;
            ring_rhs(forcing, u)
        }
    )*};
}

rings! {
    ring_rk4_f64_8: "rk4", "f64", 8;
    ring_rk4_f64_16: "rk4", "f64", 16;
    ring_rk4_f64_24: "rk4", "f64", 24;
    ring_rk4_f32_16: "rk4", "f32", 16;
    ring_rk4_f32_24: "rk4", "f32", 24;
    ring_rk4_f32_32: "rk4", "f32", 32;
    ring_tsit5_f64_4: "tsit5", "f64", 4;
    ring_tsit5_f64_8: "tsit5", "f64", 8;
    ring_tsit5_f64_16: "tsit5", "f64", 16;
    ring_tsit5_f32_8: "tsit5", "f32", 8;
    ring_tsit5_f32_16: "tsit5", "f32", 16;
}

/// A damped spring `y'' = -k y - c y'`, contracted (`contract`: the right-hand side's
/// `-k * y0 - c * y1` is one fused multiply-subtract, and RK4's stage updates are fused):
/// its tests check the fused operations against plain Rust's `mul_add`.
#[problem(method = "rk4", contract, host_loops = "portable")]
pub fn spring_contracted(_t: Scalar, y: &[Scalar; 2], k: Scalar, c: Scalar) -> [Scalar; 2] {
    [y[1], -k * y[0] - c * y[1]]
}

/// Gravity of the bouncing ball.
pub const GRAVITY: f64 = 9.81;

/// A bouncing ball (height `y[0]`, velocity `y[1]`), restitution `e` per sample: it bounces
/// where its height falls through zero, and finishes at its 10th bounce.
#[problem(
    method = "rk4",
    event(when = ground, direction = "falling", then = bounce),
    max_events = 10,
    when_full = "stop"
)]
pub fn ball(_t: Scalar, y: &[Scalar; 2], e: Scalar) -> [Scalar; 2] {
    let _ = e;
    [y[1], Scalar::splat(-GRAVITY)]
}

/// The ball's height: the bounce condition.
#[helper]
pub fn ground(_t: Scalar, y: &[Scalar; 2], _e: Scalar) -> Scalar {
    y[0]
}

/// A bounce: on the ground, the velocity reversed and scaled by `e`.
#[helper]
pub fn bounce(_t: Scalar, y: &[Scalar; 2], e: Scalar) -> [Scalar; 2] {
    [Scalar::splat(0.0), -e * y[1]]
}

/// A leaky integrate-and-fire neuron, `v' = i_in - v` (time constant 1): a spike where `v`
/// rises through 1, after which `v` is reset to 0; input current `i_in` per sample.
/// Tsitouras 5(4); up to 8 spikes recorded, a 9th fails the sample.
#[problem(
    method = "tsit5",
    event(when = threshold, direction = "rising", then = reset),
    max_events = 8,
    host_loops = "portable"
)]
pub fn neuron(_t: Scalar, v: &[Scalar; 1], i_in: Scalar) -> [Scalar; 1] {
    [i_in - v[0]]
}

/// The spike condition: `v - 1`.
#[helper]
pub fn threshold(_t: Scalar, v: &[Scalar; 1], _i_in: Scalar) -> Scalar {
    v[0] - Scalar::splat(1.0)
}

/// The reset after a spike.
#[helper]
pub fn reset(_t: Scalar, _v: &[Scalar; 1], _i_in: Scalar) -> [Scalar; 1] {
    [Scalar::splat(0.0)]
}

/// A Kepler orbit (`mu = 1`; state `x, y, vx, vy`) with Dormand-Prince 8(7): each
/// periapsis passage (the radial velocity `x vx + y vy` rising through zero) is counted
/// and recorded, and the sample finishes at its 5th.
#[problem(
    method = "dp87",
    event(when = radial_velocity, direction = "rising", then = "count"),
    max_events = 5,
    when_full = "stop",
    host_loops = "portable"
)]
pub fn kepler_passages(_t: Scalar, s: &[Scalar; 4]) -> [Scalar; 4] {
    kepler_rhs(s)
}

/// The Kepler problem's right-hand side (`mu = 1`).
#[inline(always)]
pub fn kepler_rhs<L: Lane>(s: &[L; 4]) -> [L; 4] {
    let r2 = s[0] * s[0] + s[1] * s[1];
    let inv_r3 = L::splat(L::Elem::from_f64(1.0)) / (r2 * r2.sqrt());
    [s[2], s[3], -s[0] * inv_r3, -s[1] * inv_r3]
}

/// `x vx + y vy`: zero at periapsis and apoapsis, rising through zero at periapsis.
#[helper]
pub fn radial_velocity(_t: Scalar, s: &[Scalar; 4]) -> Scalar {
    s[0] * s[2] + s[1] * s[3]
}

/// The Kepler orbit without events, the baseline of the cost of checking events.
#[problem(host_code = "where_used", method = "rk4")]
pub fn kepler_plain(_t: Scalar, s: &[Scalar; 4]) -> [Scalar; 4] {
    kepler_rhs(s)
}

/// The Kepler orbit with an event that never fires (the radius falling through zero is
/// never crossed: `r` stays positive), counted: what checking events costs.
#[problem(host_code = "where_used", method = "rk4", event(when = inside_origin, direction = "falling", then = "count"))]
pub fn kepler_watched(_t: Scalar, s: &[Scalar; 4]) -> [Scalar; 4] {
    kepler_rhs(s)
}

/// `r^2`: positive on every orbit, so its falling crossing of zero never happens.
#[helper]
pub fn inside_origin(_t: Scalar, s: &[Scalar; 4]) -> Scalar {
    s[0] * s[0] + s[1] * s[1]
}

/// [`kepler_watched`] in `f32`: the event-carrying entries must fit a GPU thread in both
/// element types (tests/it/register_table.rs).
#[problem(host_code = "where_used", 
    method = "rk4",
    real = "f32",
    event(when = inside_origin_f32, direction = "falling", then = "count")
)]
pub fn kepler_watched_f32(_t: Scalar, s: &[Scalar; 4]) -> [Scalar; 4] {
    kepler_rhs(s)
}

/// [`inside_origin`] in `f32`.
#[helper(real = "f32")]
pub fn inside_origin_f32(_t: Scalar, s: &[Scalar; 4]) -> Scalar {
    s[0] * s[0] + s[1] * s[1]
}

/// One-compartment elimination `c' = -k_el c` with a dose of `amount` added at each of 3
/// stop times per sample (`stop_t`), Tsitouras 5(4): the steps land on each dose time.
#[problem(method = "tsit5", stop(times = 3, then = dose), host_loops = "portable")]
pub fn dosing(_t: Scalar, c: &[Scalar; 1], k_el: Scalar, amount: Scalar) -> [Scalar; 1] {
    let _ = amount;
    [-k_el * c[0]]
}

/// [`dosing`] with RK4 at a fixed step.
#[problem(method = "rk4", stop(times = 3, then = dose), host_loops = "portable")]
pub fn dosing_rk4(_t: Scalar, c: &[Scalar; 1], k_el: Scalar, amount: Scalar) -> [Scalar; 1] {
    let _ = amount;
    [-k_el * c[0]]
}

/// A dose: `amount` added to the concentration.
#[helper]
pub fn dose(_t: Scalar, c: &[Scalar; 1], _k_el: Scalar, amount: Scalar) -> [Scalar; 1] {
    [c[0] + amount]
}

/// Geometric Brownian motion `dS = mu S dt + sigma S dW`, Euler-Maruyama.
#[problem(method = "euler_maruyama", diffusion = gbm_vol)]
pub fn gbm_em(_t: Scalar, s: &[Scalar; 1], mu: Param, sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [mu * s[0]]
}

/// [`gbm_em`] with Milstein, the derivative supplied ([`gbm_vol_ds`]).
#[problem(method = "milstein", diffusion = gbm_vol, derivative = gbm_vol_ds, host_loops = "portable")]
pub fn gbm_milstein(_t: Scalar, s: &[Scalar; 1], mu: Param, sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [mu * s[0]]
}

/// [`gbm_em`] with Platen's derivative-free Milstein.
#[problem(method = "milstein", diffusion = gbm_vol, derivative = "finite_difference", host_loops = "portable")]
pub fn gbm_milstein_free(_t: Scalar, s: &[Scalar; 1], mu: Param, sigma: Param) -> [Scalar; 1] {
    let _ = sigma;
    [mu * s[0]]
}

/// GBM's noise: `sigma S`.
#[helper]
pub fn gbm_vol(_t: Scalar, s: &[Scalar; 1], _mu: Param, sigma: Param) -> [Scalar; 1] {
    [sigma * s[0]]
}

/// `d(sigma S)/dS = sigma`.
#[helper]
pub fn gbm_vol_ds(_t: Scalar, _s: &[Scalar; 1], _mu: Param, sigma: Param) -> [Scalar; 1] {
    [sigma]
}

/// Ornstein-Uhlenbeck `dx = theta (mean - x) dt + sigma dW` per component (two independent
/// channels, each sample its own `theta`), Rößler's SRA1 (additive noise).
#[problem(method = "sra1", diffusion = ou_noise, host_loops = "portable")]
pub fn ou(_t: Scalar, x: &[Scalar; 2], theta: Scalar, mean: Param, sigma: Param) -> [Scalar; 2] {
    let _ = sigma;
    [theta * (mean - x[0]), theta * (mean - x[1])]
}

/// The OU noise: `sigma` on both channels.
#[helper]
pub fn ou_noise(
    _t: Scalar,
    _x: &[Scalar; 2],
    _theta: Scalar,
    _mean: Param,
    sigma: Param,
) -> [Scalar; 2] {
    [sigma, sigma]
}

/// Robertson's stiff chemical kinetics (rates per sample), Rodas5P, its Jacobian by dual
/// numbers.
#[problem(method = "rodas5p")]
pub fn robertson(_t: Scalar, y: &[Scalar; 3], k1: Scalar, k2: Scalar, k3: Scalar) -> [Scalar; 3] {
    hawk::models::robertson(y, k1, k2, k3)
}

/// [`robertson`] with Rosenbrock23.
#[problem(method = "rosenbrock23", host_loops = "portable")]
pub fn robertson23(_t: Scalar, y: &[Scalar; 3], k1: Scalar, k2: Scalar, k3: Scalar) -> [Scalar; 3] {
    hawk::models::robertson(y, k1, k2, k3)
}

/// [`robertson`] in `f32`.
#[problem(method = "rodas5p", real = "f32", host_loops = "portable")]
pub fn robertson_f32(
    _t: Scalar,
    y: &[Scalar; 3],
    k1: Scalar,
    k2: Scalar,
    k3: Scalar,
) -> [Scalar; 3] {
    hawk::models::robertson(y, k1, k2, k3)
}

/// HIRES, the 8-state photomorphogenesis problem (Hairer and Wanner II, IV.10), Rodas5P:
/// built for the GPU only, for its registers and stack at N = 8
/// (`register_table::stiff_entries_fit_a_thread`). On the host, the tests run the built-in
/// `HiresRodas5p` (the same right-hand side, `hawk::models::hires`) with its portable loops.
#[cfg(target_arch = "nvptx64")]
#[problem(host_code = "where_used", method = "rodas5p", host_loops = "portable")]
pub fn hires(_t: Scalar, y: &[Scalar; 8], p: Scalar) -> [Scalar; 8] {
    hawk::models::hires(y, p)
}

/// [`hires`] in `f32` (GPU only).
#[cfg(target_arch = "nvptx64")]
#[problem(
    host_code = "where_used",
    method = "rodas5p",
    real = "f32",
    host_loops = "portable"
)]
pub fn hires_f32(_t: Scalar, y: &[Scalar; 8], p: Scalar) -> [Scalar; 8] {
    hawk::models::hires(y, p)
}

/// Van der Pol's oscillator, stiff for large `mu` (per sample), Rodas5P.
#[problem(method = "rodas5p", host_loops = "portable")]
pub fn van_der_pol(_t: Scalar, y: &[Scalar; 2], mu: Scalar) -> [Scalar; 2] {
    hawk::models::van_der_pol(y, mu)
}

/// The Oregonator (Field and Noyes; Hairer and Wanner II, IV.10), with `s` per sample,
/// Rodas5P.
#[problem(method = "rodas5p", host_loops = "portable")]
pub fn oregonator(_t: Scalar, y: &[Scalar; 3], s: Scalar) -> [Scalar; 3] {
    hawk::models::oregonator(y, s)
}

/// Lotka-Volterra `x' = a x - b x y`, `y' = c x y - d y` with per-sample `a` and `c`,
/// Dormand-Prince 8(7): the plain adaptive kernel (no events) of a pair other than Tsit5.
#[problem(method = "dp87", host_loops = "portable")]
pub fn lotka_dp87(_t: Scalar, z: &[Scalar; 2], a: Scalar, c: Scalar) -> [Scalar; 2] {
    [a * z[0] - z[0] * z[1], c * z[0] * z[1] - z[1]]
}

/// [`lotka_dp87`] with Fehlberg 7(8).
#[problem(method = "rk78", host_loops = "portable")]
pub fn lotka_rk78(_t: Scalar, z: &[Scalar; 2], a: Scalar, c: Scalar) -> [Scalar; 2] {
    [a * z[0] - z[0] * z[1], c * z[0] * z[1] - z[1]]
}

/// Robertson with Rodas5P and an event: the sample stops where `y1` falls to 0.5 (a stiff
/// method with an event, located with the method's own step as its continuous extension).
#[problem(
    method = "rodas5p",
    event(when = robertson_half_gone, direction = "falling", then = "terminate"),
    host_loops = "portable"
)]
pub fn robertson_half(
    _t: Scalar,
    y: &[Scalar; 3],
    k1: Scalar,
    k2: Scalar,
    k3: Scalar,
) -> [Scalar; 3] {
    hawk::models::robertson(y, k1, k2, k3)
}

/// `y1 - 0.5`: [`robertson_half`]'s event condition.
#[helper]
pub fn robertson_half_gone(
    _t: Scalar,
    y: &[Scalar; 3],
    _k1: Scalar,
    _k2: Scalar,
    _k3: Scalar,
) -> Scalar {
    y[0] - Scalar::splat(0.5)
}
