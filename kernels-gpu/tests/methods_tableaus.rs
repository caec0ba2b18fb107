//! Tableau data checks: row sums and the rooted-tree order conditions (all trees up to the
//! method's order), for the propagated and the embedded weights of every tableau.

use hawk::methods::{DORMAND_PRINCE87, FEHLBERG78, TSIT5, Tableau};

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
    let ts = trees(8);
    let counts: Vec<usize> = (1..=8)
        .map(|n| ts.iter().filter(|t| t.order == n).count())
        .collect();
    assert_eq!(counts, [1, 1, 2, 4, 9, 20, 48, 115]);
}

#[test]
fn row_sums_equal_nodes() {
    check_row_sums(&FEHLBERG78);
    check_row_sums(&DORMAND_PRINCE87);
    check_row_sums(&TSIT5);
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
        let (rb, re) = (residuals(t, &t.b, 8), residuals(t, &t.b_embedded, 8));
        for q in 1..=8 {
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
}
