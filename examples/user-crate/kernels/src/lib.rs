//! Van der Pol oscillators, `x'' - mu (1 - x^2) x' + x = 0`, one per sample, swept over
//! `mu`, with the adaptive Tsitouras 5(4) method of `hawk::methods`: a kernel eagle does not
//! ship, in a crate of its own, as a problem (a right-hand side and a method) and the same
//! kernel written by hand; a damped oscillator named like eagle's built-in one; and a
//! bouncing ball, a problem with an event; and a method and a controller of the user's own
//! (Bogacki-Shampine 3(2) and a PI controller), named by value.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

use hawk::methods::{
    AdaptiveState, PiControl, Settings, StepControl, TSIT5, Tableau, adaptive_step_to,
};
use hawk::prelude::*;

/// Van der Pol as a problem: the right-hand side, `mu` per sample, and the method. The
/// kernel `van_der_pol` gets the planes `mu`, `t_end`, `rtol`, `atol`, the state
/// `y: &mut [Scalar; 2]` (x and x'), `t`, `h`, `accepted` and `rejected`.
#[problem(method = "tsit5")]
pub fn van_der_pol(_t: Scalar, y: &[Scalar; 2], mu: Scalar) -> [Scalar; 2] {
    let one = Scalar::splat(1.0);
    [y[1], (mu * (one - y[0] * y[0])).mul_add(y[1], -y[0])]
}

/// The same kernel by hand, as `#[problem]` writes it: one attempted adaptive step of one
/// Van der Pol oscillator; `terminated` at `t_end`, `failed` when the step size collapses.
/// Steps land exactly on save times (`next_save`), so saved points sit on the requested
/// times. The same bits as `van_der_pol`.
#[kernel(steps = "auto", time = t)]
pub fn van_der_pol_by_hand(
    mu: Scalar,
    t_end: Param,
    rtol: Param,
    atol: Param,
    terminated: &mut Terminated,
    failed: &mut Failed,
    x: &mut Scalar,
    v: &mut Scalar,
    t: &mut Scalar,
    h: &mut Scalar,
    accepted: &mut Scalar,
    rejected: &mut Scalar,
    next_save: NextSave,
) {
    let one = Scalar::splat(1.0);
    let f =
        move |_t: Scalar, u: &[Scalar; 2]| [u[1], (mu * (one - u[0] * u[0])).mul_add(u[1], -u[0])];
    let mut s = AdaptiveState {
        t: *t,
        y: [*x, *v],
        h: *h,
        accepted: *accepted,
        rejected: *rejected,
    };
    let settings = Settings { rtol, atol, t_end };
    let out = adaptive_step_to(
        &f,
        &TSIT5,
        &mut s,
        &settings,
        &StepControl::DEFAULT,
        next_save,
    );
    *x = s.y[0];
    *v = s.y[1];
    *t = s.t;
    *h = s.h;
    *accepted = s.accepted;
    *rejected = s.rejected;
    *terminated = out.terminated;
    *failed = out.collapsed;
}

/// A damped oscillator with the name of eagle's built-in `oscillator` (which is undamped),
/// and its planes: fine in this crate's own module, refused with eagle's (whose
/// `oscillator` is another kernel).
#[kernel(steps = "auto", time = t)]
pub fn oscillator(
    omega: Scalar,
    t_end: Param,
    dt: Param,
    terminated: &mut Terminated,
    x: &mut Scalar,
    v: &mut Scalar,
    t: &mut Scalar,
) {
    let (x0, v0) = (*x, *v);
    *x = x0 + dt * v0;
    *v = v0 - dt * (omega * omega * x0 + Scalar::splat(0.1) * v0);
    *t += dt;
    *terminated = t.simd_ge(t_end);
}

/// A bouncing ball with restitution `e` per sample: an event where the height falls
/// through zero bounces it (`bounce`), each bounce is recorded (up to 10), and the ball
/// finishes at its 10th.
#[problem(
    method = "rk4",
    event(when = ground, direction = "falling", then = bounce),
    max_events = 10,
    when_full = "stop"
)]
pub fn ball(_t: Scalar, y: &[Scalar; 2], e: Scalar) -> [Scalar; 2] {
    let _ = e;
    [y[1], Scalar::splat(-9.81)]
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

/// Langevin dynamics of a particle in a harmonic well, `dx = v dt`, `dv = -(k x + gamma
/// v) dt + sqrt(2 gamma T) dW`: additive noise, Rößler's SRA1; each sample its own
/// temperature `temp`.
#[problem(method = "sra1", diffusion = thermal)]
pub fn langevin(_t: Scalar, y: &[Scalar; 2], temp: Scalar, k: Param, gamma: Param) -> [Scalar; 2] {
    let _ = temp;
    [y[1], -(k * y[0] + gamma * y[1])]
}

/// The heat bath's kicks on the velocity (none on the position).
#[helper]
pub fn thermal(_t: Scalar, _y: &[Scalar; 2], temp: Scalar, _k: Param, gamma: Param) -> [Scalar; 2] {
    [Scalar::splat(0.0), (Scalar::splat(2.0) * gamma * temp).sqrt()]
}

/// Bogacki-Shampine 3(2) (P. Bogacki and L. F. Shampine, "A 3(2) pair of Runge-Kutta
/// formulas", Appl. Math. Lett. 2 (1989) 321-325): a pair hawk does not ship, written here
/// as a `Tableau` const. It propagates the order-3 solution; the error estimate is of
/// order 2.
pub const BS32: Tableau<4> = Tableau {
    name: "Bogacki-Shampine 3(2)",
    c: [0.0, 0.5, 0.75, 1.0],
    a: [
        [0.0, 0.0, 0.0, 0.0],
        [0.5, 0.0, 0.0, 0.0],
        [0.0, 0.75, 0.0, 0.0],
        [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0],
    ],
    b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0],
    b_embedded: [7.0 / 24.0, 0.25, 1.0 / 3.0, 0.125],
    order: 3,
    embedded_order: 2,
};

/// A PI controller with gains of the user's choice (Gustafsson's `beta1 = 0.7`, a softer
/// `beta2 = 0.3`) and a looser growth limit than the default.
pub const MY_PI: PiControl = PiControl {
    beta2: 0.3,
    fac_max: 4.0,
    ..PiControl::GUSTAFSSON
};

/// Van der Pol stepped with the user's own pair and controller: the kernel has the planes
/// of every adaptive problem and, for the controller's memory, `err_prev`.
#[problem(method = BS32, controller = MY_PI)]
pub fn van_der_pol_bs32(_t: Scalar, y: &[Scalar; 2], mu: Scalar) -> [Scalar; 2] {
    let one = Scalar::splat(1.0);
    [y[1], (mu * (one - y[0] * y[0])).mul_add(y[1], -y[0])]
}
