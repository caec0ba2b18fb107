//! Stochastic problems (tests/kernels: `gbm_em`, `gbm_milstein`, `gbm_milstein_free`,
//! `ou`): strong orders along each path's own Brownian path (its increments recomputed
//! here from `hawk::random::Stream`, as the layout documents), the GBM call price against
//! Black-Scholes and OU's stationary variance within 3 standard errors, and the same
//! draws on every team, lane width, shard, after compaction and reorder, and after a run
//! that stopped at `max_steps` is resumed; bad keys and steps are refused before a run.

use crate::common::host;
use eagle::hawk::random::Stream;
use eagle::shard::Devices;
use eagle::{Compaction, Error, Options, Reorder, Target};
use eagle_test_support::{
    GbmEm, GbmEmPlanes, GbmMilstein, GbmMilsteinFree, GbmMilsteinFreePlanes, GbmMilsteinPlanes,
    MODULE, Ou, OuPlanes,
};

/// A GBM ensemble: one path number per sample, its own start time (so samples finish at
/// different steps and compaction moves them).
#[derive(Clone, PartialEq, Debug)]
struct Gbm {
    mu: f64,
    sigma: f64,
    dt: f64,
    t_end: f64,
    seed: f64,
    path: Vec<f64>,
    s: Vec<f64>,
    t: Vec<f64>,
    step: Vec<f64>,
}

impl Gbm {
    fn new(n: usize, s0: f64, mu: f64, sigma: f64, dt: f64, t_end: f64) -> Self {
        Gbm {
            mu,
            sigma,
            dt,
            t_end,
            seed: 7.0,
            path: (0..n).map(|i| i as f64).collect(),
            s: vec![s0; n],
            t: vec![0.0; n],
            step: vec![0.0; n],
        }
    }

    fn bits(&self) -> Vec<u64> {
        [&self.s, &self.t, &self.step]
            .iter()
            .flat_map(|p| p.iter().map(|v| v.to_bits()))
            .collect()
    }
}

macro_rules! gbm_planes {
    ($ty:ident, $g:expr) => {
        $ty {
            mu: $g.mu,
            sigma: $g.sigma,
            dt: $g.dt,
            t_end: $g.t_end,
            seed: $g.seed,
            path: &$g.path,
            s: [&mut $g.s],
            t: &mut $g.t,
            step: &mut $g.step,
        }
    };
}

/// Runs `g` with `method` on `target` to the end (or `max_steps`); whether it is done.
fn run(g: &mut Gbm, method: &str, target: Target, options: Options) -> bool {
    let report = match method {
        "em" => {
            let d = MODULE.deploy(GbmEm, target).unwrap();
            let mut r = eagle::until_done(&d, options, gbm_planes!(GbmEmPlanes, g)).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            rep
        }
        "milstein" => {
            let d = MODULE.deploy(GbmMilstein, target).unwrap();
            let mut r = eagle::until_done(&d, options, gbm_planes!(GbmMilsteinPlanes, g)).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            rep
        }
        _ => {
            let d = MODULE.deploy(GbmMilsteinFree, target).unwrap();
            let mut r =
                eagle::until_done(&d, options, gbm_planes!(GbmMilsteinFreePlanes, g)).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            rep
        }
    };
    assert_eq!(report.failed, 0, "{report:?}");
    report.done()
}

/// `W_T` of path `p` over `steps` steps of `dt`: the sum of its increments, drawn as the
/// problem draws them (block 0 of step `s` under key (seed, p)).
fn brownian_end(seed: f64, p: usize, steps: usize, dt: f64) -> f64 {
    (0..steps)
        .map(|s| Stream::<f64>::new(seed, p as f64, s as f64).normals::<1>(0)[0] * dt.sqrt())
        .sum()
}

/// The least-squares slope of `log e` against `log h`.
fn slope(h: &[f64], e: &[f64]) -> f64 {
    let (x, y): (Vec<f64>, Vec<f64>) = h.iter().zip(e).map(|(h, e)| (h.ln(), e.ln())).unzip();
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    sxy / sxx
}

#[test]
fn gbm_problems_reach_their_strong_orders_along_each_paths_own_brownian_path() {
    // Higham's example: drift 2, volatility 1, S_0 = 1, T = 1; 4 step sizes.
    let (n, mu, sigma) = (4096, 2.0, 1.0);
    let steps = [64usize, 128, 256, 512];
    let h: Vec<f64> = steps.iter().map(|&s| 1.0 / s as f64).collect();
    for (method, order) in [("em", 0.5), ("milstein", 1.0), ("milstein_free", 1.0)] {
        let e: Vec<f64> = steps
            .iter()
            .map(|&k| {
                let dt = 1.0 / k as f64;
                let mut g = Gbm::new(n, 1.0, mu, sigma, dt, 1.0);
                assert!(run(&mut g, method, host(8), Options::new(1_000_000)));
                (0..n)
                    .map(|p| {
                        assert_eq!(g.step[p], k as f64, "path {p}: steps taken");
                        let w = brownian_end(g.seed, p, k, dt);
                        (g.s[p] - (mu - 0.5 * sigma * sigma + sigma * w).exp()).abs()
                    })
                    .sum::<f64>()
                    / n as f64
            })
            .collect();
        let k = slope(&h, &e);
        assert!((k - order).abs() < 0.1, "{method}: slope {k}, errors {e:?}");
    }
}

/// Black-Scholes call price.
fn black_scholes(s: f64, k: f64, r: f64, sigma: f64, t: f64) -> f64 {
    let phi = |x: f64| 0.5 * libm_erfc(-x / std::f64::consts::SQRT_2);
    let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / (sigma * t.sqrt());
    let d2 = d1 - sigma * t.sqrt();
    s * phi(d1) - k * (-r * t).exp() * phi(d2)
}

/// `erfc` (W. J. Cody's rational Chebyshev approximation as in Numerical Recipes' `erfcc`,
/// fractional error below 1.2e-7: ample against a standard error of 1e-3 relative).
fn libm_erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[test]
fn a_million_gbm_paths_price_a_call_within_three_standard_errors_of_black_scholes() {
    let (n, s0, strike, rate, sigma) = (1_000_000, 100.0, 100.0, 0.05, 0.2);
    let mut g = Gbm::new(n, s0, rate, sigma, 1.0 / 252.0, 1.0);
    assert!(run(&mut g, "milstein", Target::Best, Options::new(1_000)));
    let discount = (-rate).exp();
    let pay: Vec<f64> =
        g.s.iter()
            .map(|s| discount * (s - strike).max(0.0))
            .collect();
    let mean = pay.iter().sum::<f64>() / n as f64;
    let var = pay.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let se = (var / n as f64).sqrt();
    let exact = black_scholes(s0, strike, rate, sigma, 1.0);
    eprintln!("GBM call: {mean} +- {se} (Black-Scholes {exact})");
    assert!(
        (mean - exact).abs() < 3.0 * se,
        "price {mean} +- {se} vs Black-Scholes {exact}"
    );
    assert!(se < 0.02, "standard error {se}");
}

#[test]
fn ou_reaches_its_stationary_variance_within_three_standard_errors() {
    // theta 1..2 per sample, sigma 1: stationary variance sigma^2 / (2 theta); after
    // t = 10 the start's memory is below e^-20. Both components are independent paths.
    let n = 100_000;
    let theta: Vec<f64> = (0..n).map(|i| 1.0 + (i % 2) as f64).collect();
    let path: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut x = vec![0.0; 2 * n];
    let mut t = vec![0.0; n];
    let mut step = vec![0.0; n];
    let d = MODULE.deploy(Ou, Target::Best).unwrap();
    let mut r = eagle::until_done(
        &d,
        10_000,
        OuPlanes {
            theta: &theta,
            mean: 0.0,
            sigma: 1.0,
            dt: 0.01,
            t_end: 10.0,
            seed: 11.0,
            path: &path,
            x: eagle::components_mut::<f64, 2>(&mut x).unwrap(),
            t: &mut t,
            step: &mut step,
        },
    )
    .unwrap();
    let report = r.run().unwrap();
    r.to_host().unwrap();
    drop(r);
    assert!(report.done() && report.finished == n, "{report:?}");
    for th in [1.0, 2.0] {
        let v: Vec<f64> = (0..2 * n)
            .filter(|&k| theta[k % n] == th)
            .map(|k| x[k])
            .collect();
        let m = v.len() as f64;
        let var = v.iter().map(|x| x * x).sum::<f64>() / m;
        // The sample variance of a normal: standard error var sqrt(2 / m).
        let exact = 1.0 / (2.0 * th);
        let se = exact * (2.0 / m).sqrt();
        eprintln!("OU theta {th}: variance {var} +- {se} (exact {exact})");
        assert!(
            (var - exact).abs() < 3.0 * se,
            "theta {th}: variance {var} vs {exact} (se {se})"
        );
    }
}

/// 37 paths, each starting at its own time (0.01 apart), so they finish at different
/// steps.
fn staggered() -> Gbm {
    let mut g = Gbm::new(37, 1.0, 0.5, 0.8, 1.0 / 64.0, 1.0);
    for (i, t) in g.t.iter_mut().enumerate() {
        *t = 0.01 * i as f64;
    }
    g
}

#[test]
fn a_path_draws_the_same_noise_on_every_team_shard_slot_and_after_a_resume() {
    let mut want = staggered();
    assert!(run(&mut want, "em", host(1), Options::new(1_000_000)));
    crate::common::golden::same_bits_as_before("gbm_euler_maruyama", want.bits());
    // Every path drew its own noise: no two end alike.
    let mut ends: Vec<u64> = want.s.iter().map(|s| s.to_bits()).collect();
    ends.sort_unstable();
    ends.dedup();
    assert_eq!(ends.len(), want.s.len());
    for &lanes in eagle::Isa::detect().lane_widths() {
        let mut g = staggered();
        run(&mut g, "em", host(lanes), Options::new(1_000_000));
        assert!(g.bits() == want.bits(), "{lanes} lanes != 1 lane");
    }
    let mut g = staggered();
    run(
        &mut g,
        "em",
        host(4),
        Options::new(1_000_000)
            .steps(eagle::Steps::Fixed(8))
            .compaction(Compaction::Always)
            .reorder(Reorder::ByPlane("t".into())),
    );
    assert!(g.bits() == want.bits(), "compaction and reorder");
    let mut g = staggered();
    run(&mut g, "em", Target::Emulated, Options::new(1_000_000));
    assert!(g.bits() == want.bits(), "emulated device != host team");
    // A run stopped at max_steps, resumed from its planes.
    let mut g = staggered();
    assert!(!run(&mut g, "em", host(4), Options::new(20)));
    assert!(run(&mut g, "em", host(4), Options::new(1_000_000)));
    assert!(g.bits() == want.bits(), "stopped and resumed");
    // Two shards: samples 0.. on the host team, the rest on the emulated device.
    let fleet = MODULE
        .deploy(GbmEm, Devices::Teams(vec![host(2), Target::Emulated]))
        .unwrap();
    let mut g = staggered();
    let mut r = eagle::until_done(&fleet, 1_000_000, gbm_planes!(GbmEmPlanes, g)).unwrap();
    r.run().unwrap();
    r.to_host().unwrap();
    drop(r);
    assert!(g.bits() == want.bits(), "host and emulated shards");
    // A path alone: the same as inside the ensemble.
    let mut alone = staggered();
    for v in [&mut alone.path, &mut alone.s, &mut alone.t, &mut alone.step] {
        let keep = v[23];
        v.clear();
        v.push(keep);
    }
    run(&mut alone, "em", host(1), Options::new(1_000_000));
    assert_eq!(alone.s[0].to_bits(), want.s[23].to_bits(), "path 23 alone");
}

#[test]
fn bad_keys_and_steps_are_refused_before_a_run_naming_the_plane() {
    let d = MODULE.deploy(GbmEm, host(1)).unwrap();
    let mut g = staggered();
    g.path[5] = 2.5;
    let e = eagle::until_done(&d, 10, gbm_planes!(GbmEmPlanes, g))
        .err()
        .expect("refused");
    assert!(
        matches!(&e, Error::NotACounter { plane, sample: 5, .. } if plane == "path"),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("`path`") && e.to_string().contains("2.5"),
        "{e}"
    );
    let mut g = staggered();
    g.seed = -1.0;
    let e = eagle::until_done(&d, 10, gbm_planes!(GbmEmPlanes, g))
        .err()
        .expect("refused");
    assert!(
        matches!(&e, Error::NotACounter { plane, .. } if plane == "seed"),
        "{e:?}"
    );
    let mut g = staggered();
    g.step[0] = 4_294_967_296.0;
    let e = eagle::until_done(&d, 10, gbm_planes!(GbmEmPlanes, g))
        .err()
        .expect("refused");
    assert!(
        matches!(&e, Error::NotACounter { plane, .. } if plane == "step"),
        "{e:?}"
    );
    for dt in [0.0, -0.01] {
        let mut g = staggered();
        g.dt = dt;
        let e = eagle::until_done(&d, 10, gbm_planes!(GbmEmPlanes, g))
            .err()
            .expect("refused");
        assert!(
            matches!(&e, Error::ParamNotPositive { plane, .. } if plane == "dt"),
            "{e:?}"
        );
    }
    // Nothing was written.
    assert_eq!(g.s, staggered().s);
}
