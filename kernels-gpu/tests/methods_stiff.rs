//! Stiff systems: dual numbers (`hawk::dual`), LU in registers (`hawk::linalg`) and
//! Rosenbrock23 (`hawk::methods::rosenbrock`).
//!
//! - Every derivative rule against a central difference of std's own function (an
//!   independent implementation), the Robertson Jacobian by duals against a hand-written
//!   one, bit for bit, and HIRES's against a central difference to 1e-7.
//! - Rodas5P on HIRES, Van der Pol and the Oregonator on 8 SIMD lanes against the scalar
//!   lane (the emulated device's and a GPU thread's), bit for bit (Robertson's kernels are
//!   run on both teams in `tests/it/stiff.rs`).
//! - LU solves against their residual, pivoting where the diagonal is zero, singular and
//!   non-finite matrices flagged, and SIMD lanes (each with its own pivots) against the
//!   scalar lane, bit for bit.
//! - Rodas4 on the four stiff workloads (Robertson, HIRES, Van der Pol at mu = 1000, the
//!   Oregonator; 16 samples each) against scipy's Radau at rtol 1e-12
//!   (`data/stiff_reference.rs`, made by `scripts/stiff_reference.py`); Rosenbrock23 on
//!   Robertson; both methods' orders at fixed steps; an explicit pair on Robertson as the
//!   motivation; a non-finite Jacobian rejected as singular.
#![feature(portable_simd)]

use hawk::Lane;
use hawk::dual::{Dual, Linearization, linearize};
use hawk::linalg::lu_factor;
use hawk::methods::rosenbrock::{Jacobian, RODAS4, RODAS5P, rosenbrock_step_to, rosenbrock23_step};
use hawk::methods::{AdaptiveState, Rhs, Settings, StepControl, StepOutcome, TSIT5, adaptive_step};
use std::simd::Simd;

include!("data/stiff_reference.rs");

/// A deterministic generator of test values in `[lo, hi)`.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// `|a - b| <= tol * max(|b|, 1)`, with a message naming `what`.
fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a:e} against {b:e} (tolerance {tol:e})"
    );
}

type D1 = Dual<f64, 1>;

/// The derivative of `f` at `x` by duals, against the central difference of `g` (std's).
fn check_rule(name: &str, f: impl Fn(D1) -> D1, g: impl Fn(f64) -> f64, xs: &[f64]) {
    for &x in xs {
        let out = f(Dual::variable(x, 0));
        assert_eq!(
            out.v.to_bits(),
            f(Dual::constant(x)).v.to_bits(),
            "{name}({x}): value"
        );
        let h = 1e-6 * x.abs().max(1e-3);
        let fd = (g(x + h) - g(x - h)) / (2.0 * h);
        assert_close(out.d[0], fd, 1e-6, &format!("{name}'({x})"));
    }
}

#[test]
fn every_rule_matches_a_central_difference() {
    let any = [-2.7, -0.9, -0.3, 0.2, 0.7, 1.3, 3.1, 8.5];
    let pos = [0.05, 0.3, 0.9, 1.7, 4.2, 30.0];
    let unit = [-0.95, -0.6, -0.1, 0.25, 0.7, 0.9];
    check_rule("sin", |x| x.sin(), f64::sin, &any);
    check_rule("cos", |x| x.cos(), f64::cos, &any);
    check_rule("sin_cos.0", |x| x.sin_cos().0, f64::sin, &any);
    check_rule("sin_cos.1", |x| x.sin_cos().1, f64::cos, &any);
    check_rule("tan", |x| x.tan(), f64::tan, &unit);
    check_rule("asin", |x| x.asin(), f64::asin, &unit);
    check_rule("acos", |x| x.acos(), f64::acos, &unit);
    check_rule("atan", |x| x.atan(), f64::atan, &any);
    check_rule("sinh", |x| x.sinh(), f64::sinh, &any);
    check_rule("cosh", |x| x.cosh(), f64::cosh, &any);
    check_rule("tanh", |x| x.tanh(), f64::tanh, &any);
    check_rule("exp", |x| x.exp(), f64::exp, &any);
    check_rule("exp2", |x| x.exp2(), f64::exp2, &any);
    check_rule("exp_m1", |x| x.exp_m1(), f64::exp_m1, &any);
    check_rule("ln", |x| x.ln(), f64::ln, &pos);
    check_rule("log2", |x| x.log2(), f64::log2, &pos);
    check_rule("log10", |x| x.log10(), f64::log10, &pos);
    check_rule("ln_1p", |x| x.ln_1p(), f64::ln_1p, &unit);
    check_rule("sqrt", |x| x.sqrt(), f64::sqrt, &pos);
    check_rule("cbrt", |x| x.cbrt(), f64::cbrt, &any);
    check_rule("recip", |x| x.recip(), f64::recip, &pos);
    check_rule("abs", |x| x.abs(), f64::abs, &any);
    check_rule("powi(3)", |x| x.powi(3), |x| x.powi(3), &any);
    check_rule("powi(-2)", |x| x.powi(-2), |x| x.powi(-2), &pos);
    check_rule("fract", |x| x.fract(), f64::fract, &[0.3, 1.7, -2.2]);
    check_rule("floor", |x| x.floor(), f64::floor, &[0.3, 1.7, -2.2]);
    check_rule(
        "copysign(-1)",
        |x| x.copysign(D1::splat(-1.0)),
        |x| x.copysign(-1.0),
        &any,
    );
    // Two arguments: the derivative along the first and along the second.
    let c = D1::constant;
    check_rule("powf(x, 2.5)", |x| x.powf(c(2.5)), |x| x.powf(2.5), &pos);
    check_rule(
        "powf(-1.5, x)",
        |x| c(-1.5).powf(x),
        |x| (-1.5f64).powf(x),
        &[],
    );
    check_rule("powf(1.7, x)", |x| c(1.7).powf(x), |x| 1.7f64.powf(x), &any);
    check_rule("atan2(x, 0.7)", |x| x.atan2(c(0.7)), |x| x.atan2(0.7), &any);
    check_rule(
        "atan2(-0.4, x)",
        |x| c(-0.4).atan2(x),
        |x| (-0.4f64).atan2(x),
        &any,
    );
    check_rule("hypot(x, 1.9)", |x| x.hypot(c(1.9)), |x| x.hypot(1.9), &any);
    check_rule("min(x, 0.5)", |x| x.min(c(0.5)), |x| x.min(0.5), &any);
    check_rule("max(x, 0.5)", |x| x.max(c(0.5)), |x| x.max(0.5), &any);
    check_rule(
        "x * x / (1 + x)",
        |x| x * x / (x + c(1.0)),
        |x| x * x / (x + 1.0),
        &pos,
    );
    check_rule(
        "mul_add",
        |x| x.mul_add(x, c(3.0)),
        |x| x.mul_add(x, 3.0),
        &any,
    );
    // A constant exponent of a negative base keeps a finite derivative.
    let p = Dual::<f64, 1>::variable(-2.0, 0).powf(c(3.0));
    assert_eq!((p.v, p.d[0]), (-8.0, 12.0));
}

/// Robertson's chemical kinetics, generic over the lane (rates `k`, state `y`).
fn robertson<S: Lane<Elem = f64>>(k: [S; 3], y: &[S; 3]) -> [S; 3] {
    hawk::models::robertson(y, k[0], k[1], k[2])
}

/// Robertson's Jacobian by hand, in the order of operations the duals take.
fn robertson_jacobian<S: Lane<Elem = f64>>(k: [S; 3], y: &[S; 3]) -> [[S; 3]; 3] {
    let (two, zero) = (S::splat(2.0), S::splat(0.0));
    [
        [-k[0], k[2] * y[2], k[2] * y[1]],
        [k[0], -two * k[1] * y[1] - k[2] * y[2], -(k[2] * y[1])],
        [zero, two * k[1] * y[1], zero],
    ]
}

/// Robertson with its rates as lane values: the right-hand side and, by duals, its
/// linearization.
struct Robertson<S> {
    k: [S; 3],
}

impl<S: Lane<Elem = f64>> Rhs<S, 3> for Robertson<S> {
    #[inline(always)]
    fn eval(&self, _t: S, y: &[S; 3]) -> [S; 3] {
        robertson(self.k, y)
    }
}

impl<S: Lane<Elem = f64>> Jacobian<S, 3> for Robertson<S> {
    #[inline(always)]
    fn linearize(&self, t: S, y: &[S; 3]) -> Linearization<S, 3> {
        let k = self.k.map(Dual::constant);
        linearize::<S, 3, 4>(|_t, y| robertson(k, y), t, y)
    }
}

fn bits<const N: usize>(a: [f64; N]) -> [u64; N] {
    a.map(f64::to_bits)
}

#[test]
fn robertson_jacobian_by_duals_equals_the_hand_written_one_bit_for_bit() {
    let mut r = Lcg(7);
    for _ in 0..200 {
        let k = [r.next(0.01, 0.1), r.next(1e7, 1e8), r.next(1e3, 1e5)];
        let y = [r.next(0.0, 1.0), r.next(0.0, 4e-5), r.next(0.0, 1.0)];
        let lin = Robertson { k }.linearize(r.next(0.0, 1e5), &y);
        let hand = robertson_jacobian(k, &y);
        for i in 0..3 {
            assert_eq!(
                bits(lin.jac[i]),
                bits(hand[i]),
                "row {i} at k {k:?}, y {y:?}"
            );
        }
        assert_eq!(bits(lin.f), bits(robertson(k, &y)));
        assert_eq!(bits(lin.dfdt), [0; 3]);
    }
    // Four samples in one SIMD lane: the same bits lane by lane.
    let ks: [[f64; 3]; 4] = core::array::from_fn(|i| ROBERTSON[i].0);
    let y = [
        Simd::from_array([0.9, 0.5, 0.2, 0.7]),
        Simd::splat(1.3e-5),
        Simd::splat(0.1),
    ];
    let k: [Simd<f64, 4>; 3] = core::array::from_fn(|j| Simd::from_array(ks.map(|k| k[j])));
    let lin = Robertson { k }.linearize(Simd::splat(0.0), &y);
    for (l, kl) in ks.iter().enumerate() {
        let yl = y.map(|v| v[l]);
        let hand = robertson_jacobian(*kl, &yl);
        for i in 0..3 {
            assert_eq!(
                bits(lin.jac[i].map(|v| v[l])),
                bits(hand[i]),
                "lane {l}, row {i}"
            );
        }
    }
}

/// A random `n x n` matrix (entries in [-1, 1)) in the top-left of a 16 x 16 array.
fn random_matrix<const N: usize>(r: &mut Lcg) -> [[f64; N]; N] {
    core::array::from_fn(|_| core::array::from_fn(|_| r.next(-1.0, 1.0)))
}

fn check_solve<const N: usize>(r: &mut Lcg) {
    for _ in 0..20 {
        let mut a = random_matrix::<N>(r);
        // Zero diagonal: the factorization must pivot.
        for (i, row) in a.iter_mut().enumerate() {
            row[i] = 0.0;
        }
        let x: [f64; N] = core::array::from_fn(|_| r.next(-1.0, 1.0));
        let b: [f64; N] = core::array::from_fn(|i| (0..N).map(|j| a[i][j] * x[j]).sum());
        let lu = lu_factor(a);
        assert!(!lu.singular);
        let got = lu.solve(b);
        let norm_a: f64 = a.iter().flatten().map(|v| v.abs()).fold(0.0, f64::max);
        for i in 0..N {
            let res: f64 = (0..N).map(|j| a[i][j] * got[j]).sum::<f64>() - b[i];
            assert!(
                res.abs() <= 1e-12 * norm_a * N as f64,
                "N = {N}: residual {res:e}"
            );
        }
    }
}

#[test]
fn lu_solves_with_pivoting_at_every_size() {
    let mut r = Lcg(11);
    check_solve::<2>(&mut r);
    check_solve::<3>(&mut r);
    check_solve::<5>(&mut r);
    check_solve::<8>(&mut r);
    check_solve::<13>(&mut r);
    check_solve::<16>(&mut r);
}

#[test]
fn singular_and_non_finite_matrices_are_flagged() {
    assert!(lu_factor([[1.0, 2.0], [2.0, 4.0]]).singular);
    assert!(lu_factor([[0.0, 0.0], [0.0, 1.0]]).singular);
    assert!(lu_factor([[1.0, f64::NAN], [0.0, 1.0]]).singular);
    assert!(lu_factor([[f64::INFINITY, 0.0], [0.0, 1.0]]).singular);
    assert!(!lu_factor([[1e-300, 0.0], [0.0, 1e300]]).singular);
    // Per lane: only the singular lane is flagged.
    let a: [[Simd<f64, 2>; 2]; 2] = [
        [Simd::from_array([1.0, 1.0]), Simd::from_array([2.0, 0.0])],
        [Simd::from_array([2.0, 0.0]), Simd::from_array([4.0, 1.0])],
    ];
    assert_eq!(lu_factor(a).singular.to_array(), [true, false]);
}

#[test]
fn lanes_with_their_own_pivots_equal_the_scalar_lane_bit_for_bit() {
    let mut r = Lcg(5);
    let ms: [[[f64; 6]; 6]; 8] = core::array::from_fn(|_| random_matrix::<6>(&mut r));
    let bs: [[f64; 6]; 8] = core::array::from_fn(|_| core::array::from_fn(|_| r.next(-1.0, 1.0)));
    let a: [[Simd<f64, 8>; 6]; 6] = core::array::from_fn(|i| {
        core::array::from_fn(|j| Simd::from_array(core::array::from_fn(|l| ms[l][i][j])))
    });
    let b: [Simd<f64, 8>; 6] =
        core::array::from_fn(|i| Simd::from_array(core::array::from_fn(|l| bs[l][i])));
    let x = lu_factor(a).solve(b);
    let pivots: Vec<f64> = (0..8).map(|l| lu_factor(ms[l]).pivot[0]).collect();
    assert!(
        pivots.iter().any(|p| *p != pivots[0]),
        "the lanes should pivot differently"
    );
    for l in 0..8 {
        assert_eq!(
            bits(x.map(|v| v[l])),
            bits(lu_factor(ms[l]).solve(bs[l])),
            "lane {l}"
        );
    }
}

/// The two methods.
#[derive(Clone, Copy, Debug)]
enum Method {
    Rosenbrock23,
    Rodas4,
    Rodas5P,
}

/// One attempted step of `m`.
fn attempt<const N: usize>(
    m: Method,
    f: &impl Jacobian<f64, N>,
    s: &mut AdaptiveState<f64, N>,
    set: &Settings<f64>,
    ctl: &StepControl,
) -> StepOutcome<bool> {
    match m {
        Method::Rosenbrock23 => rosenbrock23_step(f, s, set, ctl),
        Method::Rodas4 => rosenbrock_step_to(f, &RODAS4, s, set, ctl, f64::INFINITY),
        Method::Rodas5P => rosenbrock_step_to(f, &RODAS5P, s, set, ctl, f64::INFINITY),
    }
}

/// Integrates `f` from `y0` with `m` to `t_end` at `rtol = atol = tol`; the state and the
/// accepted steps.
fn solve<const N: usize>(
    m: Method,
    f: &impl Jacobian<f64, N>,
    y0: [f64; N],
    t_end: f64,
    tol: f64,
) -> ([f64; N], f64) {
    let mut s = AdaptiveState::new(0.0, y0, 1e-6);
    let set = Settings {
        rtol: tol,
        atol: tol,
        t_end,
    };
    loop {
        let out = attempt(m, f, &mut s, &set, &StepControl::DEFAULT);
        assert!(
            !out.collapsed && !out.singular,
            "{m:?} failed at t = {}",
            s.t
        );
        assert!(
            s.accepted + s.rejected < 1e7,
            "{m:?}: no end in sight at t = {}",
            s.t
        );
        if out.terminated {
            return (s.y, s.accepted);
        }
    }
}

/// The largest relative difference, component by component.
fn max_rel(got: &[f64], want: &[f64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs() / w.abs())
        .fold(0.0, f64::max)
}

/// A right-hand side generic over the lane with per-sample inputs `p` (lifted to constants
/// on duals), as a `#[problem]` builds it, on lane `L`.
struct Stiff<L, const N: usize, const P: usize, const D: usize> {
    p: [L; P],
    f: DualRhs<L, N, P, D>,
}

/// A right-hand side `f(p, t, y)` on duals of `L` with `D` directions.
type DualRhs<L, const N: usize, const P: usize, const D: usize> =
    fn(&[Dual<L, D>; P], Dual<L, D>, &[Dual<L, D>; N]) -> [Dual<L, D>; N];

impl<L: Lane<Elem = f64>, const N: usize, const P: usize, const D: usize> Rhs<L, N>
    for Stiff<L, N, P, D>
{
    fn eval(&self, t: L, y: &[L; N]) -> [L; N] {
        let p = self.p.map(Dual::constant);
        (self.f)(&p, Dual::constant(t), &y.map(Dual::constant)).map(|d| d.v)
    }
}

impl<L: Lane<Elem = f64>, const N: usize, const P: usize, const D: usize> Jacobian<L, N>
    for Stiff<L, N, P, D>
{
    fn linearize(&self, t: L, y: &[L; N]) -> Linearization<L, N> {
        let p = self.p.map(Dual::constant);
        linearize::<L, N, D>(|t, y| (self.f)(&p, t, y), t, y)
    }
}

/// HIRES (`hawk::models::hires`, the kernels' right-hand side).
fn hires<S: Lane<Elem = f64>>(p: &[S; 1], _t: S, y: &[S; 8]) -> [S; 8] {
    hawk::models::hires(y, p[0])
}

fn van_der_pol<S: Lane<Elem = f64>>(p: &[S; 1], _t: S, y: &[S; 2]) -> [S; 2] {
    hawk::models::van_der_pol(y, p[0])
}

fn oregonator<S: Lane<Elem = f64>>(p: &[S; 1], _t: S, y: &[S; 3]) -> [S; 3] {
    hawk::models::oregonator(y, p[0])
}

#[test]
fn rodas_methods_match_radau_on_the_four_workloads() {
    // Rodas5P within 1e-6 everywhere; Rodas4 within 2e-6 (HIRES and Van der Pol are above
    // 1e-6 at this tolerance).
    workloads(Method::Rodas5P, 1e-6);
    workloads(Method::Rodas4, 2e-6);
}

/// Every workload's 16 samples with `m` at `rtol = atol = 1e-8`, each final state within
/// `rel` of Radau's, component by component.
fn workloads(m: Method, rel: f64) {
    let tol = 1e-8;
    let mut worst = [0.0f64; 4];
    let mut steps = [0.0f64; 4];
    for (k, want) in ROBERTSON {
        let (y, n) = solve(m, &Robertson { k }, [1.0, 0.0, 0.0], ROBERTSON_T_END, tol);
        worst[0] = worst[0].max(max_rel(&y, &want));
        steps[0] += n;
    }
    let y0 = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057];
    for (p, want) in HIRES {
        let f = Stiff::<f64, 8, 1, 9> { p: [p], f: hires };
        let (y, n) = solve(m, &f, y0, HIRES_T_END, tol);
        worst[1] = worst[1].max(max_rel(&y, &want));
        steps[1] += n;
    }
    for (mu, want) in VAN_DER_POL {
        let f = Stiff::<f64, 2, 1, 3> {
            p: [mu],
            f: van_der_pol,
        };
        let (y, n) = solve(m, &f, [2.0, 0.0], VAN_DER_POL_T_END, tol);
        worst[2] = worst[2].max(max_rel(&y, &want));
        steps[2] += n;
    }
    for (s, want) in OREGONATOR {
        let f = Stiff::<f64, 3, 1, 4> {
            p: [s],
            f: oregonator,
        };
        let (y, n) = solve(m, &f, [1.0, 2.0, 3.0], OREGONATOR_T_END, tol);
        worst[3] = worst[3].max(max_rel(&y, &want));
        steps[3] += n;
    }
    let names = ["robertson", "hires", "van der pol", "oregonator"];
    for i in 0..4 {
        eprintln!(
            "{m:?} {}: max relative {:.2e}, {} accepted steps per sample",
            names[i],
            worst[i],
            steps[i] / 16.0
        );
    }
    for i in 0..4 {
        assert!(
            worst[i] <= rel,
            "{m:?} {}: {:.2e} from Radau",
            names[i],
            worst[i]
        );
    }
}

#[test]
fn rosenbrock23_on_robertson_is_within_its_tolerance_and_an_explicit_pair_is_not_an_option() {
    for (k, want) in ROBERTSON {
        let (y, n) = solve(
            Method::Rosenbrock23,
            &Robertson { k },
            [1.0, 0.0, 0.0],
            ROBERTSON_T_END,
            1e-8,
        );
        // An order-2 method at rtol 1e-8 over 1e5: the global error is some 10^3 times the
        // tolerance (Radau's reference at rtol 1e-12).
        assert!(max_rel(&y, &want) < 1e-4, "{:.2e}", max_rel(&y, &want));
        // Tsitouras 5(4), explicit, at the same tolerance: over 100 times the steps without
        // reaching t_end.
        let f = Robertson { k };
        let mut s = AdaptiveState::new(0.0, [1.0, 0.0, 0.0], 1e-6);
        let set = Settings {
            rtol: 1e-8,
            atol: 1e-8,
            t_end: ROBERTSON_T_END,
        };
        for _ in 0..(100.0 * n) as usize {
            let out = adaptive_step(&f, &TSIT5, &mut s, &set, &StepControl::DEFAULT);
            assert!(
                !out.terminated,
                "tsit5 finished within 100x rosenbrock23's {n} steps"
            );
            if out.collapsed {
                break;
            }
        }
        assert!(s.t < 0.01 * ROBERTSON_T_END, "tsit5 reached t = {}", s.t);
    }
}

/// The error at `t = 1` of `m` at the fixed step `h` (every step accepted at that length),
/// on `y' = -10 (y - sin t) + cos t` (exact: `sin t + e^(-10 t)`) and `y' = -y^2` (exact
/// `1 / (1 + t)`).
fn fixed_step_error(m: Method, h: f64) -> f64 {
    let fixed = StepControl {
        safety: 1.0,
        fac_min: 1.0,
        fac_max: 1.0,
        h_floor_rel: 0.0,
    };
    let set = Settings {
        rtol: 1e300,
        atol: 1e300,
        t_end: 1.0,
    };
    let lin = Stiff::<f64, 1, 1, 2> {
        p: [-10.0],
        f: |p, t, y| [p[0] * (y[0] - t.sin()) + t.cos()],
    };
    let mut s = AdaptiveState::new(0.0, [1.0], h);
    while !attempt(m, &lin, &mut s, &set, &fixed).terminated {}
    let e1 = (s.y[0] - (1.0f64.sin() + (-10.0f64).exp())).abs();
    let quad = Stiff::<f64, 1, 1, 2> {
        p: [0.0],
        f: |_, _, y| [-(y[0] * y[0])],
    };
    let mut s = AdaptiveState::new(0.0, [1.0], h);
    while !attempt(m, &quad, &mut s, &set, &fixed).terminated {}
    e1.max((s.y[0] - 0.5).abs())
}

#[test]
fn fixed_steps_converge_at_each_methods_order() {
    for (m, order) in [
        (Method::Rosenbrock23, 2.0),
        (Method::Rodas4, 4.0),
        (Method::Rodas5P, 5.0),
    ] {
        let hs = [1.0 / 20.0, 1.0 / 40.0, 1.0 / 80.0, 1.0 / 160.0];
        let es: Vec<f64> = hs.iter().map(|&h| fixed_step_error(m, h)).collect();
        let slope = (es[0] / es[3]).ln() / (hs[0] / hs[3]).ln();
        eprintln!("{m:?}: errors {es:?}, slope {slope:.3}");
        assert!(
            (slope - order).abs() < 0.25,
            "{m:?}: slope {slope:.3}, order {order}"
        );
    }
}

#[test]
fn a_non_finite_jacobian_is_a_singular_step_and_nothing_moves() {
    let f = Robertson {
        k: [0.04, f64::NAN, 1e4],
    };
    for m in [Method::Rosenbrock23, Method::Rodas4, Method::Rodas5P] {
        let mut s = AdaptiveState::new(0.0, [1.0, 0.0, 0.0], 1e-6);
        let set = Settings {
            rtol: 1e-8,
            atol: 1e-8,
            t_end: 1.0,
        };
        let out = attempt(m, &f, &mut s, &set, &StepControl::DEFAULT);
        assert!(
            out.singular && out.rejected && !out.accepted,
            "{m:?}: {out:?}"
        );
        assert_eq!((s.t, s.y), (0.0, [1.0, 0.0, 0.0]));
    }
}

#[test]
fn hires_jacobian_by_duals_matches_a_central_difference() {
    let mut r = Lcg(3);
    for &(p, y) in HIRES.iter() {
        // The reference's final state, and random states near it.
        for pass in 0..4 {
            let y: [f64; 8] = if pass == 0 {
                y
            } else {
                y.map(|v| v * r.next(0.5, 1.5))
            };
            let f = Stiff::<f64, 8, 1, 9> { p: [p], f: hires };
            let lin = f.linearize(0.0, &y);
            let scale = lin.jac.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            for j in 0..8 {
                // HIRES is at most bilinear in y: a central difference is exact but for rounding.
                let h = 1e-3 * y[j].abs().max(1e-3);
                let (mut up, mut down) = (y, y);
                up[j] += h;
                down[j] -= h;
                let (fu, fd) = (f.eval(0.0, &up), f.eval(0.0, &down));
                for i in 0..8 {
                    let fd_ij = (fu[i] - fd[i]) / (up[j] - down[j]);
                    let err = (lin.jac[i][j] - fd_ij).abs();
                    assert!(
                        err <= 1e-7 * lin.jac[i][j].abs().max(1e-3 * scale),
                        "d f{i} / d y{j}: {:e} against {fd_ij:e}",
                        lin.jac[i][j]
                    );
                }
            }
        }
    }
}

/// Rodas5P on 8 samples of `f` in one 8-lane SIMD value against each sample on the scalar
/// lane (what the emulated device and a GPU thread run), bit for bit.
fn lanes_match_scalar<const N: usize, const D: usize>(
    name: &str,
    p: [f64; 8],
    y0: [f64; N],
    t_end: f64,
    f: DualRhs<Simd<f64, 8>, N, 1, D>,
    g: DualRhs<f64, N, 1, D>,
) {
    let run = |rhs: &dyn Fn(&mut AdaptiveState<Simd<f64, 8>, N>) -> bool| {
        let mut s = AdaptiveState::new(Simd::splat(0.0), y0.map(Simd::splat), Simd::splat(1e-6));
        while !rhs(&mut s) {}
        s
    };
    let set = Settings {
        rtol: Simd::splat(1e-8),
        atol: Simd::splat(1e-8),
        t_end: Simd::splat(t_end),
    };
    let wide = Stiff {
        p: [Simd::from_array(p)],
        f,
    };
    let s = run(&|s| {
        rosenbrock_step_to(
            &wide,
            &RODAS5P,
            s,
            &set,
            &StepControl::DEFAULT,
            Simd::splat(f64::INFINITY),
        )
        .terminated
        .all()
    });
    for (l, &pl) in p.iter().enumerate() {
        let narrow = Stiff { p: [pl], f: g };
        let mut one = AdaptiveState::new(0.0, y0, 1e-6);
        let set1 = Settings {
            rtol: 1e-8,
            atol: 1e-8,
            t_end,
        };
        while !attempt(
            Method::Rodas5P,
            &narrow,
            &mut one,
            &set1,
            &StepControl::DEFAULT,
        )
        .terminated
        {}
        assert_eq!(bits(s.y.map(|v| v[l])), bits(one.y), "{name} lane {l}");
        assert_eq!(
            (s.t[l], s.accepted[l], s.rejected[l]),
            (one.t, one.accepted, one.rejected),
            "{name} lane {l}"
        );
    }
}

#[test]
fn every_workload_on_simd_lanes_equals_the_scalar_lane_bit_for_bit() {
    let first8 = |f: &dyn Fn(usize) -> f64| -> [f64; 8] { core::array::from_fn(|i| f(2 * i)) };
    let y0 = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057];
    lanes_match_scalar::<8, 9>(
        "hires",
        first8(&|i| HIRES[i].0),
        y0,
        HIRES_T_END,
        hires,
        hires,
    );
    let vdp = first8(&|i| VAN_DER_POL[i].0);
    lanes_match_scalar::<2, 3>(
        "van der pol",
        vdp,
        [2.0, 0.0],
        VAN_DER_POL_T_END,
        van_der_pol,
        van_der_pol,
    );
    let s = first8(&|i| OREGONATOR[i].0);
    lanes_match_scalar::<3, 4>(
        "oregonator",
        s,
        [1.0, 2.0, 3.0],
        OREGONATOR_T_END,
        oregonator,
        oregonator,
    );
}
