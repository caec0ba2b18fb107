//! Events in `#[problem]`s (tests/kernels): a bouncing ball's bounce times, a leaky
//! integrate-and-fire neuron's spike times and a Kepler orbit's periapsis passages
//! against their closed forms; the host team (every lane width), the emulated device,
//! compaction with reorder and two shards give the same bits; a full record fails or
//! stops the sample as set; bad settings are refused.

use eagle::shard::Devices;
use eagle::{Compaction, Error, HostConfig, Options, Reorder, Status, Target};
use eagle_test_support::{
    Ball, BallPlanes, GRAVITY, KeplerPassages, KeplerPassagesPlanes, MODULE, Neuron, NeuronPlanes,
};

/// The ball's record size (`max_events` of tests/kernels' `ball`).
const BOUNCES: usize = 10;

/// A bouncing-ball ensemble: restitution swept 0.5..0.9, dropped from height 1 at rest.
#[derive(Clone, PartialEq)]
struct Balls {
    e: Vec<f64>,
    y: Vec<f64>,
    t: Vec<f64>,
    events: Vec<f64>,
    event_t: Vec<f64>,
    event_kind: Vec<f64>,
    event_y: Vec<f64>,
    tol: f64,
}

impl Balls {
    fn new(n: usize) -> Self {
        let e = (0..n)
            .map(|i| 0.5 + 0.4 * i as f64 / (n - 1) as f64)
            .collect();
        let mut y = vec![0.0; 2 * n];
        y[..n].fill(1.0);
        Balls {
            e,
            y,
            t: vec![0.0; n],
            events: vec![0.0; n],
            event_t: vec![0.0; BOUNCES * n],
            event_kind: vec![0.0; BOUNCES * n],
            event_y: vec![0.0; 2 * BOUNCES * n],
            tol: 1e-12,
        }
    }

    fn n(&self) -> usize {
        self.t.len()
    }

    fn planes(&mut self) -> BallPlanes<'_> {
        BallPlanes {
            e: &self.e,
            dt: 1e-3,
            t_end: 100.0,
            event_tol: self.tol,
            y: eagle::components_mut::<f64, 2>(&mut self.y).unwrap(),
            t: &mut self.t,
            events: &mut self.events,
            event_t: eagle::components_mut::<f64, BOUNCES>(&mut self.event_t).unwrap(),
            event_kind: eagle::components_mut::<f64, BOUNCES>(&mut self.event_kind).unwrap(),
            event_y: eagle::components_mut::<f64, { 2 * BOUNCES }>(&mut self.event_y).unwrap(),
        }
    }

    /// Every plane's bits (NaN payloads included).
    fn bits(&self) -> Vec<u64> {
        [
            &self.y,
            &self.t,
            &self.events,
            &self.event_t,
            &self.event_kind,
            &self.event_y,
        ]
        .iter()
        .flat_map(|p| p.iter().map(|v| v.to_bits()))
        .collect()
    }
}

/// Bounce `k` (0-based) of a ball dropped from height 1 at rest, restitution `e`.
fn bounce_time(e: f64, k: usize) -> f64 {
    let t1 = (2.0 / GRAVITY).sqrt();
    t1 + (1..=k)
        .map(|j| 2.0 * e.powi(j as i32) * GRAVITY * t1 / GRAVITY)
        .sum::<f64>()
}

fn host(lanes: usize) -> Target {
    Target::Host(HostConfig {
        lanes: Some(lanes),
        threads: Some(2),
        ..HostConfig::default()
    })
}

fn run_balls(target: Target, options: Options) -> Balls {
    let mut b = Balls::new(9);
    let d = MODULE.deploy(Ball, target).unwrap();
    let mut r = eagle::until_done(&d, options, b.planes()).unwrap();
    let report = r.run().unwrap();
    r.to_host().unwrap();
    assert!(report.done(), "{report:?}");
    assert_eq!(report.finished, 9, "{report:?}");
    drop(r);
    b
}

#[test]
fn bounce_times_match_the_closed_form_and_every_team_gives_the_same_bits() {
    let want = run_balls(host(1), Options::new(1_000_000));
    let n = want.n();
    for i in 0..n {
        assert_eq!(want.events[i], BOUNCES as f64, "sample {i}");
        for k in 0..BOUNCES {
            let (got, exact) = (want.event_t[k * n + i], bounce_time(want.e[i], k));
            assert!(
                (got - exact).abs() < 1e-9,
                "e = {}, bounce {k}: {got} vs {exact}",
                want.e[i]
            );
            assert_eq!(want.event_kind[k * n + i], 0.0);
            // The recorded state: on the ground (to the tolerance), falling.
            let (h, v) = (
                want.event_y[2 * k * n + i],
                want.event_y[(2 * k + 1) * n + i],
            );
            assert!(h <= 0.0 && h > -1e-10 && v < 0.0, "bounce {k}: {h}, {v}");
        }
        // It finished at its 10th bounce, in the state it had there.
        assert_eq!(want.t[i], want.event_t[(BOUNCES - 1) * n + i]);
        assert_eq!(want.y[i], want.event_y[2 * (BOUNCES - 1) * n + i]);
    }
    for &lanes in eagle::Isa::detect().lane_widths() {
        if lanes > 1 && lanes <= 8 {
            let got = run_balls(host(lanes), Options::new(1_000_000));
            assert!(got.bits() == want.bits(), "{lanes} lanes != 1 lane");
        }
    }
    let reordered = run_balls(
        host(4),
        Options::new(1_000_000)
            .steps(eagle::Steps::Fixed(64))
            .compaction(Compaction::Always)
            .reorder(Reorder::ByPlane("e".into())),
    );
    assert!(reordered.bits() == want.bits(), "compaction and reorder");
    let emulated = run_balls(Target::Emulated, Options::new(1_000_000));
    assert!(
        emulated.bits() == want.bits(),
        "emulated device != host team"
    );

    let fleet = MODULE
        .deploy(Ball, Devices::Teams(vec![host(2), Target::Emulated]))
        .unwrap();
    let mut shards = Balls::new(9);
    let mut r = eagle::until_done(&fleet, 1_000_000, shards.planes()).unwrap();
    r.run().unwrap();
    r.to_host().unwrap();
    drop(r);
    assert!(shards.bits() == want.bits(), "host and emulated shards");
}
