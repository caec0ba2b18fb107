//! `hawk::methods::sde`: strong orders along one Brownian path per sample.
//!
//! - Euler-Maruyama (0.5) and Milstein (1.0, with the derivative and derivative-free) on
//!   geometric Brownian motion, against its exact solution `X_T = X_0 exp((mu - sigma^2/2)
//!   T + sigma W_T)` with `W_T` the sum of the step's increments.
//! - Rößler's SRA1 (1.5) on an additive-noise problem with a nonlinear drift, against SRA1
//!   on a grid 16 times finer; each coarse step's `dw` and `dz` are summed exactly from
//!   the fine steps' (`dw`, and the time integral of the path).
//!
//! The error is the mean over paths of `|y_N - y(T)|`; the fitted slope of `log error`
//! against `log h` over 4 step sizes must be within 0.1 of the order.

use hawk::methods::sde::{
    euler_maruyama_step, milstein_free_step, milstein_step, sra1_step, wiener,
};
use hawk::random::Stream;

const PATHS: usize = 4096;
const SEED: f64 = 2024.0;

/// The least-squares slope of `log e` against `log h`.
fn slope(h: &[f64], e: &[f64]) -> f64 {
    let (x, y): (Vec<f64>, Vec<f64>) = h.iter().zip(e).map(|(h, e)| (h.ln(), e.ln())).unzip();
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    sxy / sxx
}

/// GBM (Higham's example: drift 2, volatility 1, X_0 = 1, T = 1).
const MU: f64 = 2.0;
const SIGMA: f64 = 1.0;

/// The strong error of one GBM method at `steps` steps over `[0, 1]`.
fn gbm_error(steps: usize, method: &str) -> f64 {
    let h = 1.0 / steps as f64;
    let f = |_t: f64, y: &[f64; 1]| [MU * y[0]];
    let g = |_t: f64, y: &[f64; 1]| [SIGMA * y[0]];
    let dg = |_t: f64, _y: &[f64; 1]| [SIGMA];
    let mut total = 0.0;
    for p in 0..PATHS {
        let (mut y, mut w) = ([1.0], 0.0);
        for s in 0..steps {
            let t = s as f64 * h;
            let dw: [f64; 1] = wiener(&Stream::new(SEED, p as f64, s as f64), 0, h.sqrt());
            w += dw[0];
            y = match method {
                "em" => euler_maruyama_step(&f, &g, t, &y, h, &dw),
                "milstein" => milstein_step(&f, &g, &dg, t, &y, h, &dw),
                _ => milstein_free_step(&f, &g, t, &y, h, &dw),
            };
        }
        let exact = ((MU - 0.5 * SIGMA * SIGMA) + SIGMA * w).exp();
        total += (y[0] - exact).abs();
    }
    total / PATHS as f64
}

#[test]
fn euler_maruyama_and_milstein_reach_their_strong_orders_on_gbm() {
    let steps = [64, 128, 256, 512];
    let h: Vec<f64> = steps.iter().map(|&s| 1.0 / s as f64).collect();
    for (method, order) in [("em", 0.5), ("milstein", 1.0), ("milstein_free", 1.0)] {
        let e: Vec<f64> = steps.iter().map(|&s| gbm_error(s, method)).collect();
        let k = slope(&h, &e);
        eprintln!("{method}: slope {k}, errors {e:?}");
        assert!((k - order).abs() < 0.1, "{method}: slope {k}, errors {e:?}");
    }
}

/// The additive-noise problem: `dy = -2 sin(y) dt + (2 + t) dW`, `y_0 = 1`, `T = 1`.
fn drift(_t: f64, y: &[f64; 1]) -> [f64; 1] {
    [-2.0 * y[0].sin()]
}
fn noise(t: f64, _y: &[f64; 1]) -> [f64; 1] {
    [2.0 + t]
}

/// SRA1 at `steps` coarse steps on the path drawn at `fine` steps: every coarse step sums
/// its `fine / steps` fine increments and their time integral.
fn sra1_on_fine_path(path: usize, steps: usize, fine: usize) -> f64 {
    let (hc, hf) = (1.0 / steps as f64, 1.0 / fine as f64);
    let m = fine / steps;
    let sqrt3 = 3f64.sqrt();
    let mut y = [1.0];
    for s in 0..steps {
        // Fine draws: dw and dz per fine step; the coarse dw and I = int (W - W_start) ds.
        let (mut w, mut area) = (0.0, 0.0);
        for j in 0..m {
            let st = Stream::new(SEED, path as f64, (s * m + j) as f64);
            let dw: [f64; 1] = wiener(&st, 0, hf.sqrt());
            let dz: [f64; 1] = wiener(&st, 1, hf.sqrt());
            area += w * hf + 0.5 * hf * (dw[0] + dz[0] / sqrt3);
            w += dw[0];
        }
        // area / h = (dw + dz / sqrt 3) / 2 gives the coarse dz.
        let dz = sqrt3 * (2.0 * area / hc - w);
        y = sra1_step(&drift, &noise, s as f64 * hc, &y, hc, &[w], &[dz]);
    }
    y[0]
}

#[test]
fn sra1_reaches_strong_order_one_and_a_half_on_additive_noise() {
    let fine = 4096;
    let steps = [16, 32, 64, 128];
    let paths = 1024;
    let reference: Vec<f64> = (0..paths)
        .map(|p| sra1_on_fine_path(p, fine, fine))
        .collect();
    let e: Vec<f64> = steps
        .iter()
        .map(|&s| {
            (0..paths)
                .map(|p| (sra1_on_fine_path(p, s, fine) - reference[p]).abs())
                .sum::<f64>()
                / paths as f64
        })
        .collect();
    let h: Vec<f64> = steps.iter().map(|&s| 1.0 / s as f64).collect();
    let k = slope(&h, &e);
    eprintln!("sra1: slope {k}, errors {e:?}");
    assert!((k - 1.5).abs() < 0.1, "sra1: slope {k}, errors {e:?}");
}
