//! Robertson's stiff chemical kinetics over an ensemble of rate sets on the best team
//! available: 65,536 samples (or the first argument), `k1`, `k2`, `k3` scaled per sample by
//! factors from 0.5 to 2 (as `scripts/stiff_reference.py` and
//! `scripts/robertson_baselines.py` do), `t` from 0 to 1e5 at `rtol = atol = 1e-8`, with
//! Rosenbrock23 and with Rodas5P; prints the time of each run (the first of each method,
//! which tunes `lanes: auto`, is not timed), the steps and the mean final state.
//!
//! `cargo run --release --example robertson [-- N [RUNS]]`; `scripts/robertson-baselines.sh`
//! runs numba's and scipy's versions.

use eagle::prelude::*;
use std::time::Instant;

#[problem(crate = eagle::hawk, method = "rosenbrock23")]
pub fn robertson23(_t: Scalar, y: &[Scalar; 3], k1: Scalar, k2: Scalar, k3: Scalar) -> [Scalar; 3] {
    let (a, b, c) = (k1 * y[0], k2 * y[1] * y[1], k3 * y[1] * y[2]);
    [c - a, a - b - c, b]
}

#[problem(crate = eagle::hawk, method = "rodas5p")]
pub fn robertson5(_t: Scalar, y: &[Scalar; 3], k1: Scalar, k2: Scalar, k3: Scalar) -> [Scalar; 3] {
    let (a, b, c) = (k1 * y[0], k2 * y[1] * y[1], k3 * y[1] * y[2]);
    [c - a, a - b - c, b]
}

/// The per-sample factor `2^((j - 7.5) / 7.5)`, 0.5 to 2.
fn factor(j: usize) -> f64 {
    2f64.powf((j as f64 - 7.5) / 7.5)
}

/// One ensemble's planes, fresh.
struct Ensemble {
    k: [Vec<f64>; 3],
    y: [Vec<f64>; 3],
    t: Vec<f64>,
    h: Vec<f64>,
    accepted: Vec<f64>,
    rejected: Vec<f64>,
}

impl Ensemble {
    fn new(n: usize) -> Self {
        let k = [
            (0..n).map(|i| 0.04 * factor(i % 16)).collect(),
            (0..n).map(|i| 3e7 * factor((5 * i) % 16)).collect(),
            (0..n).map(|i| 1e4 * factor((11 * i) % 16)).collect(),
        ];
        Ensemble {
            k,
            y: [vec![1.0; n], vec![0.0; n], vec![0.0; n]],
            t: vec![0.0; n],
            h: vec![1e-6; n],
            accepted: vec![0.0; n],
            rejected: vec![0.0; n],
        }
    }
}

macro_rules! planes {
    ($ty:ident, $e:expr) => {{
        let [y1, y2, y3] = &mut $e.y;
        $ty {
            k1: &$e.k[0],
            k2: &$e.k[1],
            k3: &$e.k[2],
            t_end: 1e5,
            rtol: 1e-8,
            atol: 1e-8,
            y: [y1, y2, y3],
            t: &mut $e.t,
            h: &mut $e.h,
            accepted: &mut $e.accepted,
            rejected: &mut $e.rejected,
        }
    }};
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(65_536), |a| a.parse())?;
    let runs: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let team23 = eagle::deploy(Robertson23, Target::Best)?;
    let team5 = eagle::deploy(Robertson5, Target::Best)?;
    for method in ["rosenbrock23", "rodas5p"] {
        for run in 0..=runs {
            let mut e = Ensemble::new(n);
            let start = Instant::now();
            let report = if method == "rosenbrock23" {
                let mut r = eagle::until_done(&team23, 100_000, planes!(Robertson23Planes, e))?;
                let rep = r.run()?;
                r.to_host()?;
                rep
            } else {
                let mut r = eagle::until_done(&team5, 100_000, planes!(Robertson5Planes, e))?;
                let rep = r.run()?;
                r.to_host()?;
                rep
            };
            let secs = start.elapsed().as_secs_f64();
            assert_eq!((report.finished, report.failed), (n, 0), "{report:?}");
            if run > 0 {
                let steps: f64 = e.accepted.iter().sum();
                let mean = e.y.each_ref().map(|p| p.iter().sum::<f64>() / n as f64);
                println!(
                    "eagle robertson-{method} n={n}: {secs:.4} s; accepted {steps} \
                     (per sample {:.1}); mean y {mean:?}",
                    steps / n as f64
                );
            }
        }
    }
    Ok(())
}
