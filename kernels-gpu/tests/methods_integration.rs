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
    approx::assert_abs_diff_eq!(observed, p as f64, epsilon = 0.3);
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

// ---------------------------------------------------------------- adaptive

/// Runs `adaptive_step` until terminated (at most `cap` calls); asserts no failure flag.
fn integrate<L: Lane, F: Rhs<L, N>, const N: usize, const S: usize>(
    f: &F,
    tab: &Tableau<S>,
    s: &mut AdaptiveState<L, N>,
    set: &Settings<L>,
    cap: usize,
) {
    use hawk::Mask;
    for _ in 0..cap {
        let out = adaptive_step(f, tab, s, set, &StepControl::DEFAULT);
        assert!(!out.collapsed.any() && !out.non_finite.any());
        if out.terminated.all() {
            return;
        }
    }
    panic!("{}: not done after {cap} calls", tab.name);
}

fn adaptive_oscillator<const S: usize>(tab: &Tableau<S>) {
    let t_end = 10.3;
    let set = Settings {
        rtol: 1e-10,
        atol: 1e-10,
        t_end,
    };
    let mut s = AdaptiveState::new(0.0, [1.0, 0.0], 1e-3);
    integrate(&osc(), tab, &mut s, &set, 100_000);
    assert_eq!(s.t, t_end, "{}: must land exactly on t_end", tab.name);
    let err = max_diff(&s.y, &[t_end.cos(), -t_end.sin()]);
    println!(
        "{} oscillator: err {err:.2e}, {} accepted, {} rejected",
        tab.name, s.accepted, s.rejected
    );
    assert!(err < 1e-8, "{}: oscillator error {err:e}", tab.name);
    assert!(s.accepted > 5.0);
    // A finished sample does not change any more.
    let before = s;
    let out = adaptive_step(&osc(), tab, &mut s, &set, &StepControl::DEFAULT);
    assert!(out.terminated && !out.accepted && !out.rejected);
    assert_eq!(
        [s.t, s.y[0], s.y[1], s.h, s.accepted, s.rejected].map(f64::to_bits),
        [
            before.t,
            before.y[0],
            before.y[1],
            before.h,
            before.accepted,
            before.rejected
        ]
        .map(f64::to_bits)
    );
}

fn adaptive_kepler<const S: usize>(tab: &Tableau<S>) {
    let (mu, e, t_end) = (1.0, 0.5, 20.0);
    let set = Settings {
        rtol: 1e-10,
        atol: 1e-10,
        t_end,
    };
    let y0 = kepler_exact(mu, e, 0.0);
    let mut s = AdaptiveState::new(0.0, y0, 1e-3);
    integrate(&Kepler { mu }, tab, &mut s, &set, 100_000);
    assert_eq!(s.t, t_end, "{}: must land exactly on t_end", tab.name);
    let err = max_diff(&s.y, &kepler_exact(mu, e, t_end));
    let de = ((kepler_energy(mu, &s.y) - kepler_energy(mu, &y0)) / kepler_energy(mu, &y0)).abs();
    println!(
        "{} kepler: err {err:.2e}, energy {de:.2e}, {} accepted, {} rejected",
        tab.name, s.accepted, s.rejected
    );
    // About 3 orbits at rtol = atol = 1e-10: global error grows with the orbit count.
    assert!(err < 1e-7, "{}: kepler error {err:e}", tab.name);
    assert!(de < 1e-8, "{}: kepler energy drift {de:e}", tab.name);
}

#[test]
fn adaptive_fehlberg78() {
    adaptive_oscillator(&FEHLBERG78);
    adaptive_kepler(&FEHLBERG78);
}

#[test]
fn adaptive_dormand_prince87() {
    adaptive_oscillator(&DORMAND_PRINCE87);
    adaptive_kepler(&DORMAND_PRINCE87);
}

#[test]
fn adaptive_tsit5() {
    adaptive_oscillator(&TSIT5);
    adaptive_kepler(&TSIT5);
}

#[test]
fn tighter_tolerance_gives_smaller_error() {
    let run = |tol: f64| {
        let set = Settings {
            rtol: tol,
            atol: tol,
            t_end: 5.0,
        };
        let mut s = AdaptiveState::new(0.0, [1.0, 0.0], 0.1);
        integrate(&osc(), &TSIT5, &mut s, &set, 100_000);
        (max_diff(&s.y, &[5f64.cos(), -5f64.sin()]), s.accepted)
    };
    let (e6, n6) = run(1e-6);
    let (e9, n9) = run(1e-9);
    assert!(e9 < e6 / 50.0 && n9 > n6, "{e6:e} {e9:e} {n6} {n9}");
}

#[test]
fn non_finite_state_is_flagged_and_rejected() {
    // f is NaN beyond t = 0.5 (a mask, not an `if`).
    let f = |t: f64, y: &[f64; 1]| [f64::select(t.simd_gt(0.5), f64::NAN, -y[0])];
    let set = Settings {
        rtol: 1e-6,
        atol: 1e-6,
        t_end: 1.0,
    };
    let mut s = AdaptiveState::new(0.45, [1.0], 0.01);
    let first = adaptive_step(&f, &TSIT5, &mut s, &set, &StepControl::DEFAULT);
    assert!(first.accepted && !first.non_finite);
    let before = s;
    let out = adaptive_step(&f, &TSIT5, &mut s, &set, &StepControl::DEFAULT);
    assert!(out.non_finite && out.rejected && !out.accepted && !out.terminated);
    assert_eq!((s.t, s.y, s.rejected), (before.t, before.y, 1.0));
    assert_eq!(s.h, before.h * 0.2, "a NaN error norm shrinks h by fac_min");
}

#[test]
fn step_collapse_is_flagged_at_a_blow_up() {
    // y' = y^2, y(0) = 1 blows up at t = 1.
    let f = |_t: f64, y: &[f64; 1]| [y[0] * y[0]];
    let set = Settings {
        rtol: 1e-10,
        atol: 1e-10,
        t_end: 2.0,
    };
    let mut s = AdaptiveState::new(0.0, [1.0], 1e-3);
    for _ in 0..100_000 {
        let out = adaptive_step(&f, &FEHLBERG78, &mut s, &set, &StepControl::DEFAULT);
        assert!(!out.terminated, "passed the blow-up: t = {}", s.t);
        if out.collapsed {
            println!("collapsed at t = {}, h = {:e}, y = {:e}", s.t, s.h, s.y[0]);
            // Near the singularity (the numerical one sits within the tolerance of t = 1).
            approx::assert_abs_diff_eq!(s.t, 1.0, epsilon = 1e-9);
            assert!(s.y[0] > 1e9);
            assert!(s.h < 1e-14 * s.t.abs().max(1.0));
            return;
        }
    }
    panic!("no collapse flagged: t = {}, h = {}", s.t, s.h);
}

// ---------------------------------------------------------------- lanes

const SAMPLES: usize = 16;

fn sample_params(i: usize) -> (f64, f64, f64, f64) {
    // (mu, eccentricity, t_end, rtol)
    let x = i as f64;
    (
        1.0 + 0.07 * x,
        0.05 * x,
        3.0 + 0.37 * x,
        1e-9 * (1.0 + (x % 3.0)),
    )
}

/// Per sample (t, y, h, accepted, rejected) bits after integrating Kepler orbits with
/// per-sample parameters to their own t_end, `L::WIDTH` samples per lane value.
fn run_lanes<L: Lane<Elem = f64>, const S: usize>(tab: &Tableau<S>) -> Vec<[u64; 8]> {
    use hawk::Mask;
    let w = L::WIDTH;
    let lane = |f: &dyn Fn(usize) -> f64, g: usize| -> L {
        let v: Vec<f64> = (0..w).map(|k| f(g * w + k)).collect();
        // SAFETY: `v` holds `w = WIDTH` elements.
        unsafe { L::load(v.as_ptr()) }
    };
    let mut out = Vec::new();
    for g in 0..SAMPLES / w {
        let kep = Kepler {
            mu: lane(&|i| sample_params(i).0, g),
        };
        let y0: [L; 4] = std::array::from_fn(|n| {
            lane(
                &|i| {
                    let (mu, e, _, _) = sample_params(i);
                    kepler_exact(mu, e, 0.0)[n]
                },
                g,
            )
        });
        let set = Settings {
            rtol: lane(&|i| sample_params(i).3, g),
            atol: splat_f64(1e-10),
            t_end: lane(&|i| sample_params(i).2, g),
        };
        let mut s = AdaptiveState::new(splat_f64(0.0), y0, splat_f64(1e-3));
        let mut done = false;
        for _ in 0..100_000 {
            let o = adaptive_step(&kep, tab, &mut s, &set, &StepControl::DEFAULT);
            if o.terminated.all() {
                done = true;
                break;
            }
        }
        assert!(done);
        for k in 0..w {
            let v = [
                s.t, s.y[0], s.y[1], s.y[2], s.y[3], s.h, s.accepted, s.rejected,
            ];
            out.push(v.map(|x| x.lane(k).to_bits()));
        }
    }
    out
}

fn same_bits<const S: usize>(tab: &Tableau<S>) {
    let scalar = run_lanes::<f64, S>(tab);
    let v4 = run_lanes::<Simd<f64, 4>, S>(tab);
    let v8 = run_lanes::<Simd<f64, 8>, S>(tab);
    // The samples really differ in their step counts (so freezing is exercised).
    let counts: std::collections::BTreeSet<u64> = scalar.iter().map(|r| r[6]).collect();
    assert!(counts.len() > 4, "{counts:?}");
    for i in 0..SAMPLES {
        assert_eq!(
            scalar[i], v4[i],
            "{} sample {i}: f64 vs Simd<f64, 4>",
            tab.name
        );
        assert_eq!(
            scalar[i], v8[i],
            "{} sample {i}: f64 vs Simd<f64, 8>",
            tab.name
        );
        assert_eq!(f64::from_bits(scalar[i][0]), sample_params(i).2);
    }
}

#[test]
fn same_bits_scalar_and_simd_lanes() {
    same_bits(&FEHLBERG78);
    same_bits(&DORMAND_PRINCE87);
    same_bits(&TSIT5);
}

#[test]
fn rk4_same_bits_scalar_and_simd_lanes() {
    let om: [f64; 4] = [0.5, 1.0, 1.7, 3.1];
    let f = Oscillator {
        omega2: Simd::from_array(om),
    };
    let mut y = [Simd::from_array([1.0, 0.5, -0.2, 2.0]), Simd::splat(0.3)];
    let mut ys: [[f64; 2]; 4] = std::array::from_fn(|k| [y[0][k], y[1][k]]);
    for i in 0..100 {
        let t = i as f64 * 0.01;
        y = rk4_step(&f, Simd::splat(t), &y, Simd::splat(0.01));
        for k in 0..4 {
            ys[k] = rk4_step(&Oscillator { omega2: om[k] }, t, &ys[k], 0.01);
        }
    }
    for k in 0..4 {
        assert_eq!(
            [y[0][k].to_bits(), y[1][k].to_bits()],
            ys[k].map(f64::to_bits)
        );
    }
}
