//! Prices a European call by Monte Carlo over geometric Brownian motion on the best team
//! available: a million paths (or the first argument), 252 Euler-Maruyama steps
//! (`hawk::builtin::GbmEm`, the card's `gbm-em-f64`), S0 = K = 100, r = 0.05, sigma =
//! 0.2, T = 1; prints the price with its standard error against Black-Scholes (10.4506)
//! and the time of each run (the first, which tunes `lanes: auto`, is not timed).
//!
//! `cargo run --release --example gbm [-- N [RUNS]]`; `scripts/gbm-baselines.sh` runs it
//! beside numpy and numba.

use eagle::hawk::builtin::{GbmEm, GbmEmPlanes};
use eagle::{Options, Target};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(1_000_000), |a| a.parse())?;
    let runs: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let (s0, strike, rate, sigma) = (100.0, 100.0, 0.05, 0.2);
    let path: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let team = eagle::deploy(GbmEm, Target::Best)?;
    let mut s = vec![s0; n];
    for run in 0..=runs {
        s.fill(s0);
        let (mut t, mut step) = (vec![0.0; n], vec![0.0; n]);
        let planes = GbmEmPlanes {
            mu: rate,
            sigma,
            dt: 1.0 / 252.0,
            t_end: 1.0,
            seed: 2024.0,
            path: &path,
            s: [&mut s],
            t: &mut t,
            step: &mut step,
        };
        let start = Instant::now();
        let mut runner = eagle::until_done(&team, Options::new(1_000), planes)?;
        let report = runner.run()?;
        runner.to_host()?;
        drop(runner);
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(report.finished, n, "{report:?}");
        if run > 0 {
            println!("eagle gbm-em n={n} steps=252: {secs:.4} s");
        }
    }
    let discount = (-rate).exp();
    let pay: Vec<f64> = s.iter().map(|s| discount * (s - strike).max(0.0)).collect();
    let price = pay.iter().sum::<f64>() / n as f64;
    let var = pay.iter().map(|p| (p - price).powi(2)).sum::<f64>() / (n - 1) as f64;
    println!(
        "call price {price:.4} +- {:.4} (Black-Scholes 10.4506)",
        (var / n as f64).sqrt()
    );
    Ok(())
}
