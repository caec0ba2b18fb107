//! Saving trajectories on the host team, on the card's Lorenz RK4 f64 row (n = 65,536,
//! 1,000 steps of dt = 1e-3): saving x, y and z every 10 steps (100 points, 157 MB) against
//! not saving, side by side in one process: with a warm runner (its trajectory buffer and
//! working buffers reused, as a program that runs many ensembles has) and as a first run
//! (a new runner: the trajectory is allocated and its pages are first touched by the run).
//!
//! After criterion's own report it prints the costs as ratios of medians (targets: at most
//! 15% warm, under 50% first), then the same for the emulated device (the device team's
//! orchestration and GPU entry bodies on the CPU): saving's extra launches (none: points
//! are written inside the launches) and its extra issued bytes, on the card's yardstick.

use criterion::{Criterion, criterion_group};
use eagle::hawk::builtin::{LorenzRk4, LorenzRk4Planes};
use eagle::{Deployed, HostConfig, Options, SaveAt, Target};
use std::time::{Duration, Instant};

const N: usize = 65_536;
const STEPS: u64 = 1000;
const EVERY: u64 = 10;

struct Planes {
    rho: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    z: Vec<f64>,
    t: Vec<f64>,
}

impl Planes {
    fn new() -> Self {
        Planes {
            rho: (0..N).map(|i| 21.0 * i as f64 / (N - 1) as f64).collect(),
            x: vec![1.0; N],
            y: vec![0.0; N],
            z: vec![0.0; N],
            t: vec![0.0; N],
        }
    }
    fn planes(&mut self) -> LorenzRk4Planes<'_> {
        LorenzRk4Planes {
            rho: &self.rho,
            sigma: 10.0,
            beta: 8.0 / 3.0,
            dt: 1e-3,
            t_end: 1.0,
            x: &mut self.x,
            y: &mut self.y,
            z: &mut self.z,
            t: &mut self.t,
        }
    }
}

fn options(save: bool) -> Options {
    let o = Options::new(STEPS);
    if save {
        o.save(SaveAt::every(EVERY).planes(&["x", "y", "z"]))
    } else {
        o
    }
}

/// A runner kept across iterations: each iteration resets the state and runs.
fn warm(d: &Deployed<LorenzRk4>, save: bool) -> impl FnMut() + use<> {
    let p: &'static mut Planes = Box::leak(Box::new(Planes::new()));
    let mut runner = eagle::until_done(d, options(save), p.planes()).unwrap();
    move || {
        reset(&mut runner);
        let r = runner.run().unwrap();
        assert!(r.done());
    }
}

/// Puts a runner's state back to the initial one (x = 1, y = z = t = 0).
fn reset(runner: &mut eagle::Runner<'_, LorenzRk4>) {
    runner.plane_mut("x").unwrap().fill(1.0);
    for name in ["y", "z", "t"] {
        runner.plane_mut(name).unwrap().fill(0.0);
    }
}

/// One warm run (after a first one that allocates) on `d`: its report and wall time.
fn warm_report(d: &Deployed<LorenzRk4>, save: bool) -> (eagle::RunReport, f64) {
    let mut p = Planes::new();
    let mut runner = eagle::until_done(d, options(save), p.planes()).unwrap();
    runner.run().unwrap();
    reset(&mut runner);
    let t0 = Instant::now();
    let r = runner.run().unwrap();
    let t = t0.elapsed().as_secs_f64();
    runner.to_host().unwrap();
    assert!(r.done());
    (r, t)
}

/// Saving on the emulated device: launches, issued bytes and time with and without.
fn device_costs() {
    let d = eagle::deploy(LorenzRk4, Target::Emulated).unwrap();
    let ((a, ta), (b, tb)) = (warm_report(&d, false), warm_report(&d, true));
    assert_eq!(a.launches, b.launches, "saving adds no launch");
    println!(
        "emulated device: launches {} -> {} (+0), issued bytes {:.1} MB -> {:.1} MB ({:+.1}%: \
         the saved points, {} MB), warm run {:.1} ms -> {:.1} ms ({:+.1}%)",
        a.launches,
        b.launches,
        a.issued_bytes as f64 / 1e6,
        b.issued_bytes as f64 / 1e6,
        (b.issued_bytes as f64 / a.issued_bytes as f64 - 1.0) * 100.0,
        100 * N * 25 / 1_000_000,
        ta * 1e3,
        tb * 1e3,
        (tb / ta - 1.0) * 100.0
    );
}

/// A new runner per iteration (its trajectory allocated and first touched by the run).
fn first(d: &Deployed<LorenzRk4>, save: bool) -> impl FnMut() + use<> {
    let d = d.clone();
    let mut p = Planes::new();
    move || {
        p.x.fill(1.0);
        for v in [&mut p.y, &mut p.z, &mut p.t] {
            v.fill(0.0);
        }
        let mut runner = eagle::until_done(&d, options(save), p.planes()).unwrap();
        let r = runner.run().unwrap();
        assert!(r.done());
        if save {
            assert_eq!(runner.trajectory().unwrap().unwrap().bytes(), 100 * N * 25);
        }
    }
}

/// Medians of `reps` runs of `a` and of `b`, run alternately (a, b, a, b, ...) so that the
/// machine's drift hits both.
fn medians(mut a: impl FnMut(), mut b: impl FnMut(), reps: usize) -> (f64, f64) {
    let time = |f: &mut dyn FnMut()| {
        let t0 = Instant::now();
        f();
        t0.elapsed().as_secs_f64()
    };
    let (mut ta, mut tb): (Vec<f64>, Vec<f64>) =
        (0..reps).map(|_| (time(&mut a), time(&mut b))).unzip();
    ta.sort_by(f64::total_cmp);
    tb.sort_by(f64::total_cmp);
    (ta[reps / 2], tb[reps / 2])
}

fn bench(c: &mut Criterion) {
    let d = eagle::deploy(LorenzRk4, Target::Host(HostConfig::default())).unwrap();
    // Let `lanes: auto` decide before anything is timed.
    warm(&d, false)();
    let mut g = c.benchmark_group("trajectory_lorenz_rk4_n65536");
    g.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (name, save) in [("no_save", false), ("save_every_10", true)] {
        let mut w = warm(&d, save);
        g.bench_function(format!("{name}/warm"), |b| b.iter(&mut w));
        let mut f = first(&d, save);
        g.bench_function(format!("{name}/first"), |b| b.iter(&mut f));
    }
    g.finish();
    // The costs, side by side (alternating, so drift hits both).
    let reps = 7;
    let (a, b) = medians(warm(&d, false), warm(&d, true), reps);
    let (c0, c1) = medians(first(&d, false), first(&d, true), reps);
    println!(
        "trajectory cost (medians of {reps}): warm {:.1} ms -> {:.1} ms ({:+.1}%), first run \
         {:.1} ms -> {:.1} ms ({:+.1}%); {} MB saved per run",
        a * 1e3,
        b * 1e3,
        (b / a - 1.0) * 100.0,
        c0 * 1e3,
        c1 * 1e3,
        (c1 / c0 - 1.0) * 100.0,
        100 * N * 25 / 1_000_000
    );
    device_costs();
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
