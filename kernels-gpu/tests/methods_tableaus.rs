//! Tableau data checks: row sums and the rooted-tree order conditions (all trees up to the
//! method's order), for the propagated and the embedded weights of every tableau; and, for
//! Verner's pairs, fixed-step convergence slopes and an adaptive Lorenz run.

use hawk::methods::{
    AdaptiveState, DORMAND_PRINCE87, FEHLBERG78, Settings, StepControl, TSIT5, Tableau, VERN7,
    VERN9, adaptive_step, embedded_step,
};

/// A rooted tree: its order and its children (indices into the list of smaller trees).
struct Tree {
    order: usize,
    children: Vec<usize>,
}

/// Every rooted tree up to order `max`, by increasing order.
fn trees(max: usize) -> Vec<Tree> {
    fn multisets(
        all: &[Tree],
        start: usize,
        remaining: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if remaining == 0 {
            out.push(cur.clone());
            return;
        }
        for i in start..all.len() {
            if all[i].order <= remaining {
                cur.push(i);
                multisets(all, i, remaining - all[i].order, cur, out);
                cur.pop();
            }
        }
    }
    let mut all = vec![Tree {
        order: 1,
        children: vec![],
    }];
    for n in 2..=max {
        let mut sets = Vec::new();
        multisets(&all, 0, n - 1, &mut Vec::new(), &mut sets);
        all.extend(sets.into_iter().map(|children| Tree { order: n, children }));
    }
    all
}

/// Per tree: (order, sum_i b_i Phi_i(t) - 1/gamma(t)).
fn residuals<const S: usize>(tab: &Tableau<S>, b: &[f64; S], max: usize) -> Vec<(usize, f64)> {
    let ts = trees(max);
    let mut phi: Vec<[f64; S]> = Vec::new();
    let mut gamma: Vec<f64> = Vec::new();
    for t in &ts {
        let mut p = [1.0; S];
        let mut g = t.order as f64;
        for &ch in &t.children {
            for i in 0..S {
                let s: f64 = (0..S).map(|j| tab.a[i][j] * phi[ch][j]).sum();
                p[i] *= s;
            }
            g *= gamma[ch];
        }
        phi.push(p);
        gamma.push(g);
    }
    ts.iter()
        .enumerate()
        .map(|(k, t)| {
            let s: f64 = (0..S).map(|i| b[i] * phi[k][i]).sum();
            (t.order, s - 1.0 / gamma[k])
        })
        .collect()
}

/// Order-condition tolerances for Verner's pairs, whose entries are the nearest `f64` to his
/// exact coefficients (sizes up to 187 in 7(6), 36 in 9(8)); measured worst residuals:
/// 4.0e-15 (7(6)) and 5.6e-16 (9(8)).
const TOL7: f64 = 1e-14;
const TOL9: f64 = 1e-14;

fn worst(res: &[(usize, f64)], order: usize) -> f64 {
    res.iter()
        .filter(|r| r.0 == order)
        .map(|r| r.1.abs())
        .fold(0.0, f64::max)
}

/// Asserts every condition up to `p` holds to `tol`, and that some condition of order
/// `p + 1` fails by far more (so the weights are not of higher order, and the check bites).
fn check_order<const S: usize>(tab: &Tableau<S>, b: &[f64; S], p: usize, tol: f64, what: &str) {
    let res = residuals(tab, b, p + 1);
    for q in 1..=p {
        let w = worst(&res, q);
        assert!(
            w <= tol,
            "{} {what}: order-{q} conditions off by {w:e}",
            tab.name
        );
    }
    let w = worst(&res, p + 1);
    assert!(
        w > 1e-6,
        "{} {what}: order {} conditions hold too ({w:e})",
        tab.name,
        p + 1
    );
}

fn check_row_sums<const S: usize>(tab: &Tableau<S>) {
    for i in 0..S {
        let s: f64 = tab.a[i].iter().sum();
        let mag: f64 = tab.a[i].iter().map(|a| a.abs()).sum::<f64>().max(1.0);
        assert!(
            approx::abs_diff_eq!(s, tab.c[i], epsilon = 4.0 * f64::EPSILON * mag),
            "{} row {i}: sum {s} != c {}",
            tab.name,
            tab.c[i]
        );
        for j in i..S {
            assert_eq!(tab.a[i][j], 0.0, "{} not explicit at ({i},{j})", tab.name);
        }
    }
    assert_eq!(tab.c[0], 0.0);
}

#[test]
fn tree_counts_are_the_known_ones() {
    let ts = trees(10);
    let counts: Vec<usize> = (1..=10)
        .map(|n| ts.iter().filter(|t| t.order == n).count())
        .collect();
    assert_eq!(counts, [1, 1, 2, 4, 9, 20, 48, 115, 286, 719]);
}

#[test]
fn row_sums_equal_nodes() {
    check_row_sums(&FEHLBERG78);
    check_row_sums(&DORMAND_PRINCE87);
    check_row_sums(&TSIT5);
    check_row_sums(&VERN7);
    check_row_sums(&VERN9);
}

#[test]
fn fehlberg78_orders() {
    let t = &FEHLBERG78;
    assert_eq!((t.order, t.embedded_order, t.error_order()), (8, 7, 7));
    check_order(t, &t.b, 8, 1e-14, "propagated");
    check_order(t, &t.b_embedded, 7, 1e-14, "embedded");
}

/// The trap of DESIGN.md: the weights with 41/840 on stages 11 and 12 are the order-8 ones.
#[test]
fn fehlberg78_propagates_the_order8_weights() {
    let t = &FEHLBERG78;
    assert_eq!([t.b[0], t.b[10]], [0.0, 0.0]);
    assert_eq!([t.b[11], t.b[12]], [41.0 / 840.0, 41.0 / 840.0]);
    assert_eq!(
        [t.b_embedded[0], t.b_embedded[10]],
        [41.0 / 840.0, 41.0 / 840.0]
    );
    // And the order-7 weights really fail order 8.
    assert!(worst(&residuals(t, &t.b_embedded, 8), 8) > 1e-6);
}

#[test]
fn dormand_prince87_orders() {
    let t = &DORMAND_PRINCE87;
    assert_eq!((t.order, t.embedded_order, t.error_order()), (8, 7, 7));
    // The rationals are exact to ~1e-17; measured f64 residuals are below 2e-15.
    check_order(t, &t.b, 8, 1e-14, "propagated");
    check_order(t, &t.b_embedded, 7, 1e-14, "embedded");
}

#[test]
fn tsit5_orders() {
    let t = &TSIT5;
    assert_eq!((t.order, t.embedded_order, t.error_order()), (5, 4, 4));
    // The data are 16-digit decimals with entries up to ~13 in size: 2e-14, not 1e-14.
    check_order(t, &t.b, 5, 2e-14, "propagated");
    check_order(t, &t.b_embedded, 4, 2e-14, "embedded");
    // First same as last: the last stage is evaluated at the propagated solution.
    assert_eq!(t.a[6], t.b);
}

/// Prints the worst residual per order (run with --nocapture to see the margins).
#[test]
fn residual_report() {
    fn report<const S: usize>(t: &Tableau<S>) {
        let max = t.order as usize + 1;
        let (rb, re) = (residuals(t, &t.b, max), residuals(t, &t.b_embedded, max));
        for q in 1..=max {
            println!(
                "{:24} order {q}: b {:9.2e}  b_embedded {:9.2e}",
                t.name,
                worst(&rb, q),
                worst(&re, q)
            );
        }
    }
    report(&FEHLBERG78);
    report(&DORMAND_PRINCE87);
    report(&TSIT5);
    report(&VERN7);
    report(&VERN9);
}

#[test]
fn vern7_orders() {
    let t = &VERN7;
    assert_eq!((t.order, t.embedded_order, t.error_order()), (7, 6, 6));
    check_order(t, &t.b, 7, TOL7, "propagated");
    // Also fails order 7: the embedded weights are not a copy of `b`.
    check_order(t, &t.b_embedded, 6, TOL7, "embedded");
}

#[test]
fn vern9_orders() {
    let t = &VERN9;
    assert_eq!((t.order, t.embedded_order, t.error_order()), (9, 8, 8));
    check_order(t, &t.b, 9, TOL9, "propagated");
    check_order(t, &t.b_embedded, 8, TOL9, "embedded");
}

/// Verner's entries are the nearest `f64` to his exact coefficients (no first column fitted
/// to the row sums), and the row sums still hold to a few ulps of the row's largest partial
/// sums (measured: 2.9e-15 for 7(6), whose entries reach 187; 2.4e-15 for 9(8)).
#[test]
fn verner_row_sums_are_tight() {
    fn worst<const S: usize>(t: &Tableau<S>) -> f64 {
        (0..S)
            .map(|i| (t.a[i].iter().sum::<f64>() - t.c[i]).abs())
            .fold(0.0, f64::max)
    }
    for w in [worst(&VERN7), worst(&VERN9)] {
        assert!(w <= 4e-15, "row sum off by {w:e}");
    }
}

/// The quadrature conditions `sum b_i c_i^k = 1/(k+1)`, `k < order`, on their own.
#[test]
fn verner_quadrature_conditions() {
    fn quad<const S: usize>(t: &Tableau<S>, b: &[f64; S], k: i32) -> f64 {
        let s: f64 = (0..S).map(|i| b[i] * t.c[i].powi(k)).sum();
        s - 1.0 / (k + 1) as f64
    }
    fn check<const S: usize>(t: &Tableau<S>, tol: f64) {
        for (b, p, what) in [
            (&t.b, t.order, "propagated"),
            (&t.b_embedded, t.embedded_order, "embedded"),
        ] {
            for k in 0..p as i32 {
                let r = quad(t, b, k);
                assert!(r.abs() <= tol, "{} {what}: k = {k} off by {r:e}", t.name);
            }
        }
    }
    check(&VERN7, TOL7);
    check(&VERN9, TOL9);
}

// ---------------------------------------------------------------- Verner: convergence

/// `y' = y - t^2 + 1`, `y(0) = 1/2`: `y = (t + 1)^2 - e^t / 2`, to `t = 6`.
///
/// Why not `y' = y cos t`: there Verner's 9(8), whose order-10 error coefficients are made
/// small on purpose, shows local slopes of 9.8 to 10.4 all the way down to roundoff (and
/// about 9.4 on Kepler orbits); on this problem both pairs show their order at errors
/// between `1e-8` and `1e-12`.
fn textbook(t: f64, y: &[f64; 1]) -> [f64; 1] {
    [y[0] - t * t + 1.0]
}

const TEXTBOOK_END: f64 = 6.0;

/// Global error at `TEXTBOOK_END` after `steps` fixed steps of the propagated solution
/// (`embedded`: of the embedded one, `y - err`).
fn textbook_error<const S: usize>(tab: &Tableau<S>, steps: usize, embedded: bool) -> f64 {
    let h = TEXTBOOK_END / steps as f64;
    let mut y = [0.5];
    for i in 0..steps {
        let s = embedded_step(&textbook, tab, i as f64 * h, &y, h);
        y = if embedded { [s.y[0] - s.err[0]] } else { s.y };
    }
    let t: f64 = TEXTBOOK_END;
    (y[0] - ((t + 1.0) * (t + 1.0) - 0.5 * t.exp())).abs()
}

/// Least-squares slope of `log(error)` against `log(h)` over the step counts `steps`.
fn fitted_slope<const S: usize>(tab: &Tableau<S>, steps: &[usize], embedded: bool) -> f64 {
    let pts: Vec<(f64, f64)> = steps
        .iter()
        .map(|&n| {
            let e = textbook_error(tab, n, embedded);
            println!(
                "  {} (embedded: {embedded}) {n:4} steps: error {e:.3e}",
                tab.name
            );
            // The range must stay in the asymptotic regime, above roundoff.
            assert!(e > 1e-13 && e < 1e-5, "{} {n} steps: error {e:e}", tab.name);
            ((1.0 / n as f64).ln(), e.ln())
        })
        .collect();
    let m = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / m;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / m;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

fn assert_slope(name: &str, slope: f64, p: u32) {
    println!("{name}: fitted slope {slope:.3} (expected {p})");
    approx::assert_abs_diff_eq!(slope, p as f64, epsilon = 0.3);
}

#[test]
fn vern7_converges_with_order_7_and_embedded_6() {
    let p = fitted_slope(&VERN7, &[32, 45, 64, 91, 128], false);
    assert_slope("vern7 b", p, 7);
    let p = fitted_slope(&VERN7, &[32, 45, 64, 91, 128], true);
    assert_slope("vern7 b_embedded", p, 6);
}

#[test]
fn vern9_converges_with_order_9_and_embedded_8() {
    let p = fitted_slope(&VERN9, &[11, 16, 23, 32], false);
    assert_slope("vern9 b", p, 9);
    // The embedded solution is still pre-asymptotic here (local slopes 8.27 to 8.33 from
    // 3e-6 down to 5e-10, then roundoff): a looser window than 0.3 around 8.
    let p = fitted_slope(&VERN9, &[11, 16, 23, 32], true);
    println!("vern9 b_embedded: fitted slope {p:.3} (expected 8)");
    assert!(
        (7.7..8.6).contains(&p),
        "vern9 b_embedded: fitted slope {p}"
    );
}

// ---------------------------------------------------------------- Verner: adaptive Lorenz

/// Lorenz system, sigma 10, rho 28, beta 8/3.
fn lorenz(_t: f64, y: &[f64; 3]) -> [f64; 3] {
    [
        10.0 * (y[1] - y[0]),
        y[0] * (28.0 - y[2]) - y[1],
        y[0] * y[1] - 8.0 / 3.0 * y[2],
    ]
}

/// Lorenz from `(1, 1, 1)` to `t = 1` with `adaptive_step` at `rtol = atol = tol`: the final
/// state and the accepted and rejected step counts.
fn lorenz_adaptive<const S: usize>(tab: &Tableau<S>, tol: f64) -> ([f64; 3], f64, f64) {
    let mut s = AdaptiveState::new(0.0, [1.0, 1.0, 1.0], 1e-3);
    let set = Settings {
        rtol: tol,
        atol: tol,
        t_end: 1.0,
    };
    for _ in 0..100_000 {
        let out = adaptive_step(&lorenz, tab, &mut s, &set, &StepControl::DEFAULT);
        assert!(
            !out.collapsed && !out.non_finite,
            "{}: step failure",
            tab.name
        );
        if out.terminated {
            assert_eq!(s.t, 1.0);
            return (s.y, s.accepted, s.rejected);
        }
    }
    panic!("{}: not done", tab.name);
}

fn max_diff(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    (0..3).map(|n| (a[n] - b[n]).abs()).fold(0.0, f64::max)
}

#[test]
fn verner_adaptive_lorenz() {
    let (reference, ..) = lorenz_adaptive(&VERN9, 1e-14);
    // Independent cross-checks of the reference with the other 8th-order pairs.
    for (name, y) in [
        ("fehlberg78", lorenz_adaptive(&FEHLBERG78, 1e-14).0),
        (
            "dormand_prince87",
            lorenz_adaptive(&DORMAND_PRINCE87, 1e-14).0,
        ),
    ] {
        let d = max_diff(&y, &reference);
        eprintln!("lorenz: vern9 at 1e-14 vs {name} at 1e-14: {d:.2e}");
        assert!(d < 1e-9, "lorenz: reference and {name} differ by {d:e}");
    }
    let (y9, acc9, rej9) = lorenz_adaptive(&VERN9, 1e-12);
    let (y7, acc7, rej7) = lorenz_adaptive(&VERN7, 1e-12);
    let (_, acc8, rej8) = lorenz_adaptive(&FEHLBERG78, 1e-12);
    let (e9, e7) = (max_diff(&y9, &reference), max_diff(&y7, &reference));
    eprintln!("lorenz at 1e-12: vern9 error {e9:.2e}, {acc9} accepted, {rej9} rejected");
    eprintln!("lorenz at 1e-12: vern7 error {e7:.2e}, {acc7} accepted, {rej7} rejected");
    eprintln!("lorenz at 1e-12: fehlberg78 {acc8} accepted, {rej8} rejected");
    assert!(e9 < 1e-9, "vern9 at 1e-12: error {e9:e}");
    assert!(e7 < 1e-9, "vern7 at 1e-12: error {e7:e}");
}
