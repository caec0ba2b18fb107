//! Events in `#[problem]`s (tests/kernels): a bouncing ball's bounce times, a leaky
//! integrate-and-fire neuron's spike times and a Kepler orbit's periapsis passages
//! against their closed forms; the host team (every lane width), the emulated device,
//! compaction with reorder and two shards give the same bits; a full record fails or
//! stops the sample as set; bad settings are refused.

use crate::common::host;
use eagle::shard::Devices;
use eagle::{Compaction, Error, Options, Reorder, Status, Target};
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
    crate::common::golden::same_bits_as_before("ball_rk4_events", want.bits());
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

/// The neuron's record size (`max_events` of tests/kernels' `neuron`).
const SPIKES: usize = 8;

#[test]
fn spike_times_match_the_closed_form_and_a_full_record_fails_only_its_sample() {
    // Input currents 1.2..4: periods ln(i / (i - 1)) from 1.79 down to 0.29, so by
    // t_end = 3.5 the slowest neurons spike once and the fastest 12 times (more than the
    // record holds: they fail, the others finish).
    let n = 15;
    let i_in: Vec<f64> = (0..n)
        .map(|i| 1.2 + 2.8 * i as f64 / (n - 1) as f64)
        .collect();
    let t_end = 3.5;
    let mut v = vec![0.0; n];
    let mut t = vec![0.0; n];
    let mut h = vec![1e-3; n];
    let (mut acc, mut rej, mut events) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut event_t = vec![0.0; SPIKES * n];
    let mut event_kind = vec![0.0; SPIKES * n];
    let mut event_y = vec![0.0; SPIKES * n];
    let d = MODULE.deploy(Neuron, host(4)).unwrap();
    let mut r = eagle::until_done(
        &d,
        100_000,
        NeuronPlanes {
            i_in: &i_in,
            t_end,
            rtol: 1e-12,
            atol: 1e-14,
            event_tol: 1e-13,
            v: [&mut v],
            t: &mut t,
            h: &mut h,
            accepted: &mut acc,
            rejected: &mut rej,
            events: &mut events,
            event_t: eagle::components_mut::<f64, SPIKES>(&mut event_t).unwrap(),
            event_kind: eagle::components_mut::<f64, SPIKES>(&mut event_kind).unwrap(),
            event_y: eagle::components_mut::<f64, SPIKES>(&mut event_y).unwrap(),
        },
    )
    .unwrap();
    let report = r.run().unwrap();
    let status = r.status().to_vec();
    drop(r);
    assert!(report.done(), "{report:?}");
    crate::common::golden::same_planes_as_before(
        "neuron_tsit5_events",
        &[
            &v,
            &t,
            &h,
            &acc,
            &rej,
            &events,
            &event_t,
            &event_kind,
            &event_y,
        ],
    );
    let mut failed = 0;
    for i in 0..n {
        let period = (i_in[i] / (i_in[i] - 1.0)).ln();
        let spikes = (t_end / period).floor() as usize;
        let recorded = spikes.min(SPIKES);
        for k in 0..recorded {
            let (got, exact) = (event_t[k * n + i], (k + 1) as f64 * period);
            assert!(
                (got - exact).abs() < 1e-9,
                "i_in = {}, spike {k}: {got} vs {exact}",
                i_in[i]
            );
            // Recorded on the threshold (to the tolerance), before the reset.
            assert!((event_y[k * n + i] - 1.0).abs() < 1e-9);
        }
        if spikes > SPIKES {
            // The 9th spike failed the sample: the step before it is kept, and with it the
            // full record.
            failed += 1;
            assert_eq!(status[i], Status::Failed, "sample {i}");
            assert_eq!(events[i], SPIKES as f64, "sample {i}");
            assert!(t[i] < (SPIKES + 1) as f64 * period && t[i] > SPIKES as f64 * period);
        } else {
            assert_eq!(status[i], Status::Finished, "sample {i}");
            assert_eq!((events[i], t[i]), (spikes as f64, t_end), "sample {i}");
        }
    }
    assert!(
        failed > 0 && failed < n,
        "the sweep must have both: {failed}"
    );
    assert_eq!(report.failed, failed);
}

#[test]
fn periapsis_passages_come_at_multiples_of_the_period() {
    // a = 1, mu = 1: period 2 pi. Eccentricities 0.1..0.7, each starting at periapsis.
    let n = 7;
    let ecc: Vec<f64> = (0..n).map(|i| 0.1 + 0.1 * i as f64).collect();
    let mut s = vec![0.0; 4 * n];
    for i in 0..n {
        s[i] = 1.0 - ecc[i];
        s[3 * n + i] = ((1.0 + ecc[i]) / (1.0 - ecc[i])).sqrt();
    }
    let mut t = vec![0.0; n];
    let mut h = vec![1e-3; n];
    let (mut acc, mut rej, mut events) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut event_t = vec![0.0; 5 * n];
    let mut event_kind = vec![0.0; 5 * n];
    let mut event_y = vec![0.0; 20 * n];
    let d = MODULE.deploy(KeplerPassages, host(2)).unwrap();
    let mut r = eagle::until_done(
        &d,
        1_000_000,
        KeplerPassagesPlanes {
            t_end: 40.0,
            rtol: 1e-13,
            atol: 1e-15,
            event_tol: 1e-13,
            s: eagle::components_mut::<f64, 4>(&mut s).unwrap(),
            t: &mut t,
            h: &mut h,
            accepted: &mut acc,
            rejected: &mut rej,
            events: &mut events,
            event_t: eagle::components_mut::<f64, 5>(&mut event_t).unwrap(),
            event_kind: eagle::components_mut::<f64, 5>(&mut event_kind).unwrap(),
            event_y: eagle::components_mut::<f64, 20>(&mut event_y).unwrap(),
        },
    )
    .unwrap();
    let report = r.run().unwrap();
    drop(r);
    assert!(report.done() && report.finished == n, "{report:?}");
    crate::common::golden::same_planes_as_before(
        "kepler_dp87_events",
        &[
            &s,
            &t,
            &h,
            &acc,
            &rej,
            &events,
            &event_t,
            &event_kind,
            &event_y,
        ],
    );
    let period = 2.0 * std::f64::consts::PI;
    for i in 0..n {
        assert_eq!(events[i], 5.0, "sample {i}");
        for k in 0..5 {
            let got = event_t[k * n + i];
            let exact = (k + 1) as f64 * period;
            assert!(
                (got - exact).abs() < 1e-8,
                "e = {}, passage {k}: {got} vs {exact}",
                ecc[i]
            );
            // At periapsis: x = 1 - e, y = 0.
            assert!((event_y[4 * k * n + i] - (1.0 - ecc[i])).abs() < 1e-8);
        }
        // Stopped at its 5th passage.
        assert_eq!(t[i], event_t[4 * n + i]);
    }
}

#[test]
fn an_event_tolerance_that_is_not_positive_is_refused_naming_it() {
    for tol in [0.0, -1e-9] {
        let mut b = Balls::new(3);
        b.tol = tol;
        let d = MODULE.deploy(Ball, host(1)).unwrap();
        let e = eagle::until_done(&d, 10, b.planes())
            .err()
            .expect("refused");
        assert!(
            matches!(&e, Error::ParamNotPositive { plane, .. } if plane == "event_tol"),
            "{e:?}"
        );
        assert!(e.to_string().contains("event_tol"), "{e}");
    }
    let mut b = Balls::new(3);
    b.tol = f64::NAN;
    let d = MODULE.deploy(Ball, host(1)).unwrap();
    let e = eagle::until_done(&d, 10, b.planes())
        .err()
        .expect("refused");
    assert!(matches!(&e, Error::NonFiniteParam { plane, .. } if plane == "event_tol"));
}

#[test]
fn a_condition_that_turns_nan_fails_its_sample_only() {
    // A restitution of NaN makes the first bounce's velocity NaN: that ball fails at its
    // first bounce, keeping the state from before it; the others bounce on.
    let mut b = Balls::new(4);
    b.e[1] = f64::NAN;
    let d = MODULE.deploy(Ball, host(4)).unwrap();
    let mut r = eagle::until_done(&d, 1_000_000, b.planes()).unwrap();
    let report = r.run().unwrap();
    let status = r.status().to_vec();
    drop(r);
    assert_eq!(report.failed, 1, "{report:?}");
    assert_eq!(status[1], Status::Failed);
    assert_eq!(b.events[1], 0.0);
    assert!(
        b.y[1] > 0.0 && b.y[1] < 1e-2,
        "kept the state before the bounce"
    );
    for i in [0, 2, 3] {
        assert_eq!((status[i], b.events[i]), (Status::Finished, BOUNCES as f64));
    }
}

/// Concentrations after doses: `c0 e^{-k t}` plus each dose given by `t`, decayed since.
fn dosed(c0: f64, k: f64, amount: f64, doses: &[f64], t: f64) -> f64 {
    c0 * (-k * t).exp()
        + doses
            .iter()
            .filter(|&&d| d <= t)
            .map(|d| amount * (-k * (t - d)).exp())
            .sum::<f64>()
}

/// A dosing sweep: elimination rate 0.5..1.5, dose 1..2, three dose times per sample
/// (given out of order; the last sample's third one after `t_end`, so never given).
struct Doses {
    k_el: Vec<f64>,
    amount: Vec<f64>,
    stop_t: Vec<f64>,
    c: Vec<f64>,
    t: Vec<f64>,
}

impl Doses {
    fn new(n: usize) -> Self {
        let mut stop_t = vec![0.0; 3 * n];
        for i in 0..n {
            stop_t[i] = 2.5;
            stop_t[n + i] = 1.0 + 0.1 * i as f64;
            stop_t[2 * n + i] = if i == n - 1 {
                99.0
            } else {
                4.0 - 0.05 * i as f64
            };
        }
        Doses {
            k_el: (0..n).map(|i| 0.5 + i as f64 / (n - 1) as f64).collect(),
            amount: (0..n).map(|i| 1.0 + i as f64 / (n - 1) as f64).collect(),
            stop_t,
            c: vec![0.5; n],
            t: vec![0.0; n],
        }
    }

    fn check(&self, t_end: f64, tol: f64) {
        let n = self.t.len();
        for i in 0..n {
            let doses = [self.stop_t[i], self.stop_t[n + i], self.stop_t[2 * n + i]];
            let want = dosed(0.5, self.k_el[i], self.amount[i], &doses, t_end);
            assert_eq!(self.t[i], t_end);
            assert!(
                ((self.c[i] - want) / want).abs() < tol,
                "sample {i}: {} vs {want}",
                self.c[i]
            );
        }
    }
}

#[test]
fn doses_at_stop_times_match_the_closed_form_on_every_team() {
    use eagle_test_support::{Dosing, DosingPlanes, DosingRk4, DosingRk4Planes};
    let n = 8;
    let t_end = 5.0;
    let adaptive = |target: Target| {
        let mut d = Doses::new(n);
        let (mut h, mut acc, mut rej) = (vec![1e-3; n], vec![0.0; n], vec![0.0; n]);
        let deployed = MODULE.deploy(Dosing, target).unwrap();
        let mut r = eagle::until_done(
            &deployed,
            100_000,
            DosingPlanes {
                k_el: &d.k_el,
                amount: &d.amount,
                t_end,
                rtol: 1e-12,
                atol: 1e-14,
                c: [&mut d.c],
                t: &mut d.t,
                h: &mut h,
                accepted: &mut acc,
                rejected: &mut rej,
                stop_t: eagle::components::<f64, 3>(&d.stop_t).unwrap(),
            },
        )
        .unwrap();
        assert!(r.run().unwrap().done());
        r.to_host().unwrap();
        drop(r);
        d
    };
    let on_host = adaptive(host(4));
    on_host.check(t_end, 1e-10);
    let bits = on_host.c.iter().chain(&on_host.t).map(|x| x.to_bits());
    crate::common::golden::same_bits_as_before("dosing_tsit5_stops", bits);
    let emulated = adaptive(Target::Emulated);
    assert!(
        on_host
            .c
            .iter()
            .zip(&emulated.c)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "tsit5 dosing: emulated != host"
    );

    let fixed = |target: Target| {
        let mut d = Doses::new(n);
        let deployed = MODULE.deploy(DosingRk4, target).unwrap();
        let mut r = eagle::until_done(
            &deployed,
            100_000,
            DosingRk4Planes {
                k_el: &d.k_el,
                amount: &d.amount,
                dt: 1e-3,
                t_end,
                c: [&mut d.c],
                t: &mut d.t,
                stop_t: eagle::components::<f64, 3>(&d.stop_t).unwrap(),
            },
        )
        .unwrap();
        assert!(r.run().unwrap().done());
        r.to_host().unwrap();
        drop(r);
        d
    };
    let on_host = fixed(host(2));
    on_host.check(t_end, 1e-10);
    let bits = on_host.c.iter().chain(&on_host.t).map(|x| x.to_bits());
    crate::common::golden::same_bits_as_before("dosing_rk4_stops", bits);
    let emulated = fixed(Target::Emulated);
    assert!(
        on_host
            .c
            .iter()
            .zip(&emulated.c)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "rk4 dosing: emulated != host"
    );
}
