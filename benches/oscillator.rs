//! The seed's oscillator (n = 100,000, t_end 1, dt 1e-3, max_steps 10,000) on the host team
//! against a plain rayon + scalar loop over the same planes, in the same process.
//!
//! After criterion's own report it prints a summary from criterion's medians: the speed-up
//! over the baseline and useful FLOP/s as a fraction of the FP64 FMA peak measured here.

use criterion::{Criterion, criterion_group};
use eagle::hawk::Kernel;
use eagle::hawk::builtin::{Oscillator, OscillatorPlanes, oscillator};
use eagle::hawk_host::{count::flops_per_step, peak};
use rayon::prelude::*;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const N: usize = 100_000;
const T_END: f64 = 1.0;
const DT: f64 = 1e-3;
const MAX_STEPS: u64 = 10_000;
const GROUP: &str = "oscillator_n100000";

struct Planes {
    omega: Vec<f64>,
    x: Vec<f64>,
    v: Vec<f64>,
    t: Vec<f64>,
}

impl Planes {
    fn seed() -> Self {
        Planes {
            omega: (0..N)
                .map(|i| 1.0 + 2.0 * i as f64 / (N - 1) as f64)
                .collect(),
            x: vec![1.0; N],
            v: vec![0.0; N],
            t: vec![0.0; N],
        }
    }
    fn reset(&mut self) {
        self.x.fill(1.0);
        self.v.fill(0.0);
        self.t.fill(0.0);
    }
}

/// The baseline: rayon over samples, each integrated to completion with plain scalars.
fn rayon_scalar(p: &mut Planes) {
    let omega = &p.omega;
    p.x.par_iter_mut()
        .zip(p.v.par_iter_mut())
        .zip(p.t.par_iter_mut())
        .zip(omega.par_iter())
        .for_each(|(((x, v), t), &w)| {
            for _ in 0..MAX_STEPS {
                let (x0, v0) = (*x, *v);
                *x = x0 + DT * v0;
                *v = v0 - DT * w * w * x0;
                *t += DT;
                if *t >= T_END {
                    break;
                }
            }
        });
}

fn host_team(p: &mut Planes, deployed: &eagle::Deployed<Oscillator>) {
    let planes = OscillatorPlanes {
        omega: &p.omega,
        t_end: T_END,
        dt: DT,
        x: &mut p.x,
        v: &mut p.v,
        t: &mut p.t,
    };
    let mut runner = eagle::until_done(deployed, MAX_STEPS, planes).unwrap();
    black_box(runner.run().unwrap());
}

/// Runs `f` `iters` times from freshly reset planes; returns the time spent in `f` alone.
fn timed(iters: u64, p: &mut Planes, mut f: impl FnMut(&mut Planes)) -> Duration {
    (0..iters)
        .map(|_| {
            p.reset();
            let t0 = Instant::now();
            f(p);
            t0.elapsed()
        })
        .sum()
}

fn bench(c: &mut Criterion) {
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best).unwrap();
    let mut p = Planes::seed();
    let mut g = c.benchmark_group(GROUP);
    g.sample_size(20);
    // Only the runs are timed: resetting the planes between iterations is not.
    g.bench_function("host_team", |b| {
        b.iter_custom(|iters| timed(iters, &mut p, |p| host_team(p, &deployed)))
    });
    g.bench_function("rayon_scalar_baseline", |b| {
        b.iter_custom(|iters| timed(iters, &mut p, rayon_scalar))
    });
    g.finish();
}

criterion_group!(benches, bench);

/// Criterion's median for one bench of this group, in seconds.
fn median_s(name: &str) -> Option<f64> {
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let home = std::env::var("CRITERION_HOME")
        .map_or(PathBuf::from(target).join("criterion"), PathBuf::from);
    let path = home.join(GROUP).join(name).join("new/estimates.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(json["median"]["point_estimate"].as_f64()? * 1e-9)
}

/// Steps every sample really takes (the useful work), from the scalar reference.
fn useful_sample_steps() -> u64 {
    let p = Planes::seed();
    (0..N)
        .map(|i| {
            let (mut x, mut v, mut t, mut done) = (p.x[i], p.v[i], p.t[i], false);
            let mut s = 0;
            while s < MAX_STEPS && !done {
                oscillator::<f64>(p.omega[i], T_END, DT, &mut done, &mut x, &mut v, &mut t);
                s += 1;
            }
            s
        })
        .sum()
}

fn summary() {
    let (Some(team), Some(base)) = (median_s("host_team"), median_s("rayon_scalar_baseline"))
    else {
        println!("summary: criterion medians not found (was the group filtered out?)");
        return;
    };
    let flops = flops_per_step::<Oscillator>(&[2.0], &[T_END, DT], &[1.0, 0.0, 0.0]);
    let useful = flops as f64 * useful_sample_steps() as f64;
    let peak = peak::host_fp64_peak();
    println!(
        "\n== {} on the host team ({} threads) ==",
        Oscillator::NAME,
        rayon::current_num_threads()
    );
    println!("FLOPs per step (counted from the kernel): {flops}");
    println!("host FP64 FMA peak (measured): {:.1} GFLOP/s", peak / 1e9);
    for (name, s) in [("host_team", team), ("rayon_scalar_baseline", base)] {
        println!(
            "{name:>22}: median {:8.2} ms, useful {:6.1} GFLOP/s = {:5.1}% of peak",
            s * 1e3,
            useful / s / 1e9,
            100.0 * useful / s / peak
        );
    }
    println!(
        "speed-up of host_team over the baseline (medians): {:.2}x",
        base / team
    );
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}
