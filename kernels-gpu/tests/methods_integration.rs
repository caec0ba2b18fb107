//! Integration checks of `hawk::methods`: convergence orders with fixed steps, adaptive
//! accuracy on the harmonic oscillator and a Kepler orbit, the failure flags, and bit-identical
//! results between scalar and SIMD lanes.
#![feature(portable_simd)]

use hawk::Lane;
use hawk::methods::{
    AdaptiveState, DORMAND_PRINCE87, FEHLBERG78, Rhs, Settings, StepControl, TSIT5, Tableau,
    adaptive_step, embedded_step, rk4_step, splat_f64,
};
use std::simd::Simd;

// ---------------------------------------------------------------- problems

/// Harmonic oscillator x'' = -omega^2 x as y = (x, v).
#[derive(Clone, Copy)]
struct Oscillator<L> {
    omega2: L,
}

impl<L: Lane> Rhs<L, 2> for Oscillator<L> {
    fn eval(&self, _t: L, y: &[L; 2]) -> [L; 2] {
        [y[1], -self.omega2 * y[0]]
    }
}

/// Two-body problem in the plane, y = (x, y, vx, vy), gravitational parameter `mu`.
#[derive(Clone, Copy)]
struct Kepler<L> {
    mu: L,
}

impl<L: Lane> Rhs<L, 4> for Kepler<L> {
    fn eval(&self, _t: L, y: &[L; 4]) -> [L; 4] {
        let r2 = y[0] * y[0] + y[1] * y[1];
        let k = -self.mu / (r2 * r2.sqrt());
        [y[2], y[3], k * y[0], k * y[1]]
    }
}

/// The Kepler orbit with semi-major axis 1, eccentricity `e`, starting at periapsis at t = 0.
fn kepler_exact(mu: f64, e: f64, t: f64) -> [f64; 4] {
    let n = mu.sqrt();
    let m = n * t;
    let mut ea = m;
    for _ in 0..50 {
        ea -= (ea - e * ea.sin() - m) / (1.0 - e * ea.cos());
    }
    let edot = n / (1.0 - e * ea.cos());
    let s = (1.0 - e * e).sqrt();
    [
        ea.cos() - e,
        s * ea.sin(),
        -ea.sin() * edot,
        s * ea.cos() * edot,
    ]
}

fn kepler_energy(mu: f64, y: &[f64; 4]) -> f64 {
    0.5 * (y[2] * y[2] + y[3] * y[3]) - mu / (y[0] * y[0] + y[1] * y[1]).sqrt()
}

fn max_diff<const N: usize>(a: &[f64; N], b: &[f64; N]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

// ---------------------------------------------------------------- convergence

/// Global error at `t_end` of `steps` fixed steps of `step`.
fn fixed_error<const N: usize>(
    step: impl Fn(f64, &[f64; N], f64) -> [f64; N],
    y0: [f64; N],
    t_end: f64,
    steps: usize,
    exact: [f64; N],
) -> f64 {
    let h = t_end / steps as f64;
    let mut y = y0;
    for i in 0..steps {
        y = step(i as f64 * h, &y, h);
    }
    max_diff(&y, &exact)
}

/// Observed order log2(err(h) / err(h/2)), on the oscillator and on the logistic equation.
fn observed_orders(
    step_osc: impl Fn(f64, &[f64; 2], f64) -> [f64; 2] + Copy,
    steps: usize,
) -> [f64; 2] {
    let t_end: f64 = 4.0;
    let osc = [t_end.cos(), -t_end.sin()];
    let e1 = fixed_error(step_osc, [1.0, 0.0], t_end, steps, osc);
    let e2 = fixed_error(step_osc, [1.0, 0.0], t_end, 2 * steps, osc);
    [(e1 / e2).log2(), e1]
}

fn logistic_order(step: impl Fn(f64, &[f64; 1], f64) -> [f64; 1] + Copy, steps: usize) -> f64 {
    let t_end: f64 = 3.0;
    let exact = [1.0 / (1.0 + 9.0 * (-t_end).exp())];
    let e1 = fixed_error(step, [0.1], t_end, steps, exact);
    let e2 = fixed_error(step, [0.1], t_end, 2 * steps, exact);
    println!("  logistic: err {e1:.3e} -> {e2:.3e}");
    (e1 / e2).log2()
}

fn assert_order(name: &str, observed: f64, p: u32) {
    println!("{name}: observed order {observed:.3} (expected {p})");
    assert!(
        (observed - p as f64).abs() < 0.3,
        "{name}: observed order {observed}, expected {p}"
    );
}

fn osc() -> Oscillator<f64> {
    Oscillator { omega2: 1.0 }
}

fn logistic(_t: f64, y: &[f64; 1]) -> [f64; 1] {
    [y[0] * (1.0 - y[0])]
}

fn tab_step<const S: usize, const N: usize>(
    tab: &'static Tableau<S>,
    f: impl Rhs<f64, N> + Copy,
    embedded: bool,
) -> impl Fn(f64, &[f64; N], f64) -> [f64; N] + Copy {
    move |t, y, h| {
        let s = embedded_step(&f, tab, t, y, h);
        if embedded {
            std::array::from_fn(|n| s.y[n] - s.err[n])
        } else {
            s.y
        }
    }
}

#[test]
fn rk4_converges_with_order_4() {
    let [p, _] = observed_orders(|t, y, h| rk4_step(&osc(), t, y, h), 40);
    assert_order("rk4 oscillator", p, 4);
    assert_order(
        "rk4 logistic",
        logistic_order(|t, y, h| rk4_step(&logistic, t, y, h), 20),
        4,
    );
}

// Step counts are chosen in the asymptotic range but above roundoff (order-8 errors reach
// 1e-13 within a few halvings in f64). Intervals: oscillator t in [0, 4], logistic [0, 3].

#[test]
fn fehlberg78_converges_with_order_8_and_embedded_7() {
    // The trap: propagating the wrong weights would show order 7 here.
    let [p, _] = observed_orders(tab_step(&FEHLBERG78, osc(), false), 16);
    assert_order("fehlberg78 b oscillator", p, 8);
    let p = logistic_order(tab_step(&FEHLBERG78, logistic, false), 8);
    assert_order("fehlberg78 b logistic", p, 8);
    let [p, _] = observed_orders(tab_step(&FEHLBERG78, osc(), true), 8);
    assert_order("fehlberg78 b_embedded oscillator", p, 7);
}

#[test]
fn dormand_prince87_converges_with_order_8_and_embedded_7() {
    let p = logistic_order(tab_step(&DORMAND_PRINCE87, logistic, false), 8);
    assert_order("dp87 b logistic", p, 8);
    // Kepler orbit, e = 0.5, one period, 128 -> 256 steps.
    let (kep, y0) = (Kepler { mu: 1.0 }, kepler_exact(1.0, 0.5, 0.0));
    let te = 2.0 * std::f64::consts::PI;
    let ex = kepler_exact(1.0, 0.5, te);
    let e1 = fixed_error(tab_step(&DORMAND_PRINCE87, kep, false), y0, te, 128, ex);
    let e2 = fixed_error(tab_step(&DORMAND_PRINCE87, kep, false), y0, te, 256, ex);
    assert_order("dp87 b kepler", (e1 / e2).log2(), 8);
    // On linear problems RK8(7)13M's z^9 coefficient is within 1.3e-3 of 1/9!, so its error
    // looks like order ~9 until roundoff: only a lower bound there.
    let [p, _] = observed_orders(tab_step(&DORMAND_PRINCE87, osc(), false), 8);
    println!("dp87 b oscillator: observed order {p:.3} (at least 8)");
    assert!(p > 7.7, "dp87 b oscillator: observed order {p}");
    let [p, _] = observed_orders(tab_step(&DORMAND_PRINCE87, osc(), true), 8);
    assert_order("dp87 b_embedded oscillator", p, 7);
}

#[test]
fn tsit5_converges_with_order_5_and_embedded_4() {
    let [p, _] = observed_orders(tab_step(&TSIT5, osc(), false), 64);
    assert_order("tsit5 b oscillator", p, 5);
    let p = logistic_order(tab_step(&TSIT5, logistic, false), 64);
    assert_order("tsit5 b logistic", p, 5);
    let [p, _] = observed_orders(tab_step(&TSIT5, osc(), true), 32);
    assert_order("tsit5 b_embedded oscillator", p, 4);
}
