//! Trustworthy runs, tried hard: random ensembles and settings against a plain scalar
//! reference (planes and statuses bit for bit, on the host team and the emulated device),
//! a batch where 1% of samples blow up, cancel and time limit from another thread then
//! resume, injected device faults (at every allocation and launch), NaN reorder keys, and a
//! soak test (`cargo test --release --test trust
//! soak -- --ignored --nocapture`).

mod common;

use eagle::hawk::Steps;
use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
use eagle::hawk_host::LANE_WIDTHS;
use eagle::{
    Arm, Compaction, DeviceCompaction, Error, FaultPlan, HostConfig, Options, Reorder, Runner,
    Status, Stop, TeamChoice,
};
use eagle_test_support::{Wobble, WobblePlanes, wobble};
use proptest::prelude::*;
use std::time::Duration;

/// Deploys the test kernel with its own module (the built-in one lacks it).
fn deploy_wobble(choice: TeamChoice) -> Result<eagle::Deployed<Wobble>, Error> {
    eagle::deploy_on_with_module(Wobble, choice, Some(eagle_test_support::MODULE))
}

const DT: f64 = 0.01;

/// A wobble ensemble: `blow` samples overflow, `flag` samples are failed by the kernel.
#[derive(Clone, Debug, PartialEq)]
struct Wob {
    g: Vec<f64>,
    fail_at: Vec<f64>,
    x: Vec<f64>,
    v: Vec<f64>,
    t: Vec<f64>,
}

impl Wob {
    fn new(n: usize, seed: u64, blow: &[usize], flag: &[usize]) -> Self {
        let mut r = common::Rng(seed);
        let mut w = Wob {
            g: vec![1.0; n],
            fail_at: vec![f64::INFINITY; n],
            x: (0..n).map(|_| r.uniform(-1.0, 1.0)).collect(),
            v: (0..n).map(|_| r.uniform(-1.0, 1.0)).collect(),
            t: (0..n).map(|_| r.uniform(0.0, 0.95)).collect(),
        };
        for &i in blow {
            w.g[i] = 1e200;
        }
        for &i in flag {
            w.fail_at[i] = w.t[i] + 0.2;
        }
        w
    }
    fn planes(&mut self) -> WobblePlanes<'_> {
        WobblePlanes {
            g: &self.g,
            fail_at: &self.fail_at,
            dt: DT,
            x: &mut self.x,
            v: &mut self.v,
            t: &mut self.t,
        }
    }
    fn bits(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .chain(&self.t)
            .map(|f| f.to_bits())
            .collect()
    }
}

/// The straightforward reference: each sample alone, one step at a time; a step that
/// flags `failed` or leaves a NaN/infinite state is undone and the sample is `Failed`.
fn reference(w: &mut Wob, max_steps: u64) -> Vec<Status> {
    (0..w.x.len())
        .map(|i| {
            for _ in 0..max_steps {
                let old = (w.x[i], w.v[i], w.t[i]);
                let (mut done, mut failed) = (false, false);
                wobble::<f64>(
                    w.g[i],
                    w.fail_at[i],
                    DT,
                    &mut done,
                    &mut failed,
                    &mut w.x[i],
                    &mut w.v[i],
                    &mut w.t[i],
                );
                let finite = w.x[i].is_finite() && w.v[i].is_finite() && w.t[i].is_finite();
                if failed || !finite {
                    (w.x[i], w.v[i], w.t[i]) = old;
                    return Status::Failed;
                }
                if done {
                    return Status::Finished;
                }
            }
            Status::Capped
        })
        .collect()
}

/// Runs `w` to the end; with `resume_every`, a zero time limit stops every call after one
/// launch and the run is resumed until it ends (a resume point at every launch boundary).
fn run(
    w: &mut Wob,
    choice: TeamChoice,
    options: Options,
    resume_every: bool,
) -> (Vec<Status>, Vec<Stop>) {
    let options = if resume_every {
        options.time_limit(Duration::ZERO)
    } else {
        options
    };
    let deployed = deploy_wobble(choice).unwrap();
    let mut runner = eagle::until_done_with(&deployed, options, w.planes()).unwrap();
    let mut stops = vec![runner.run().unwrap()];
    while stops.last().unwrap().stop == Stop::TimeLimit {
        stops.push(runner.resume().unwrap());
    }
    runner.to_host().unwrap();
    let last = stops.last().unwrap();
    let st = runner.status().to_vec();
    let count = |s| st.iter().filter(|&&x| x == s).count();
    assert_eq!(last.finished, count(Status::Finished));
    assert_eq!(last.failed, count(Status::Failed));
    assert_eq!(last.capped, count(Status::Capped));
    assert_eq!(last.finished + last.failed + last.capped, st.len());
    (st, stops.iter().map(|r| r.stop).collect())
}

fn settings() -> impl Strategy<Value = Options> {
    (
        1u64..160,
        prop_oneof![
            Just(None),
            Just(Some(Steps::Auto)),
            (1u32..40).prop_map(|k| Some(Steps::Fixed(k)))
        ],
        prop_oneof![
            Just(Compaction::Off),
            Just(Compaction::Auto),
            Just(Compaction::Always)
        ],
        any::<bool>(),
    )
        .prop_map(|(max_steps, steps, c, reorder)| {
            let mut o = Options::new(max_steps).compaction(c);
            o.steps = steps;
            if reorder {
                o = o.reorder(Reorder::ByPlane("t".into()));
            }
            o
        })
}

/// Up to 2% of samples blow up and 2% are failed by the kernel, chosen by the seed.
fn ensemble(n: usize, seed: u64) -> Wob {
    let mut r = common::Rng(seed ^ 0xABCD);
    let pick = |r: &mut common::Rng| -> Vec<usize> {
        (0..n / 50)
            .map(|_| (r.next_u64() % n as u64) as usize)
            .collect()
    };
    let (blow, flag) = (pick(&mut r), pick(&mut r));
    Wob::new(n, seed, &blow, &flag)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Host team: every thread count, lane width, k, cap, compaction, reorder and resume
    /// point gives the reference's planes and statuses bit for bit, in the caller's order.
    #[test]
    fn host_equals_reference(
        n in 1usize..3000,
        seed in any::<u64>(),
        options in settings(),
        threads in 1usize..4,
        lanes in prop::sample::select(LANE_WIDTHS.to_vec()),
        resume_every in prop::bool::weighted(0.3),
    ) {
        let mut want = ensemble(n, seed);
        let want_status = reference(&mut want, options.max_steps);
        let mut got = ensemble(n, seed);
        let cfg = HostConfig { threads: Some(threads), lanes: Some(lanes), isa: None };
        let (status, stops) = run(&mut got, TeamChoice::Host(cfg), options.clone(), resume_every);
        prop_assert_eq!(&status, &want_status);
        prop_assert!(got.bits() == want.bits(), "planes differ from the reference");
        prop_assert_eq!(got.g, want.g);
        let last = *stops.last().unwrap();
        let all_stopped = want_status.iter().all(|&s| s != Status::Capped);
        prop_assert_eq!(last, if all_stopped { Stop::Done } else { Stop::MaxSteps });
    }

    /// The emulated device team, every arm and strategy: the same as the reference.
    #[test]
    fn emulated_device_equals_reference(
        n in 1usize..1500,
        seed in any::<u64>(),
        options in settings(),
        arm in prop_oneof![Just(Arm::Simulate), Just(Arm::Graph), Just(Arm::GraphWhile)],
        strategy in prop_oneof![Just(DeviceCompaction::IndexList), Just(DeviceCompaction::Gather)],
        resume_every in prop::bool::weighted(0.3),
    ) {
        let mut want = ensemble(n, seed);
        let want_status = reference(&mut want, options.max_steps);
        let mut got = ensemble(n, seed);
        let o = options.arm(arm).device_compaction(strategy);
        let (status, _) = run(&mut got, TeamChoice::EmulatedDevice, o, resume_every);
        prop_assert_eq!(&status, &want_status);
        prop_assert!(got.bits() == want.bits(), "planes differ from the reference");
    }
}

#[test]
fn empty_ensemble_is_the_documented_error() {
    for choice in [
        TeamChoice::Host(HostConfig::default()),
        TeamChoice::EmulatedDevice,
    ] {
        let mut w = Wob::new(0, 1, &[], &[]);
        let deployed = deploy_wobble(choice).unwrap();
        let err = eagle::until_done(&deployed, 10, w.planes()).err().unwrap();
        assert_eq!(
            err.to_string(),
            "the ensemble is empty: plane `g` has length 0 (give at least one sample)"
        );
    }
}

/// 1% of 10,000 samples blow up (to infinity, then NaN); the rest finish untouched.
#[test]
fn one_percent_blow_up() {
    let n = 10_000;
    let blow: Vec<usize> = (0..n).filter(|i| i % 100 == 37).collect();
    for choice in [
        TeamChoice::Host(HostConfig::default()),
        TeamChoice::EmulatedDevice,
    ] {
        let mut want = Wob::new(n, 5, &blow, &[]);
        let want_status = reference(&mut want, 1000);
        let mut w = Wob::new(n, 5, &blow, &[]);
        let start = w.clone();
        let deployed = deploy_wobble(choice.clone()).unwrap();
        let mut runner = eagle::until_done(&deployed, 1000, w.planes()).unwrap();
        let report = runner.run().unwrap();
        runner.to_host().unwrap();
        let status = runner.status().to_vec();
        drop(runner);
        assert_eq!(report.stop, Stop::Done, "{choice:?}");
        // A count that is the contract: the ensemble was built with exactly 100 samples
        // that blow up, and every other one finishes.
        assert_eq!(
            (report.failed, report.finished, report.capped),
            (100, 9900, 0)
        );
        for i in 0..n {
            let want_s = if blow.contains(&i) {
                Status::Failed
            } else {
                Status::Finished
            };
            assert_eq!(status[i], want_s, "sample {i}");
            assert!(w.x[i].is_finite() && w.v[i].is_finite() && w.t[i].is_finite());
            if blow.contains(&i) {
                // The last finite state: one step, from the start (the second overflows).
                assert!(
                    w.t[i] > start.t[i] && w.t[i] < start.t[i] + 0.015,
                    "sample {i}"
                );
            }
        }
        assert_eq!(status, want_status);
        assert_eq!(w.bits(), want.bits());
    }
}

/// Samples the kernel itself flags `failed` stop there (state from before that step).
#[test]
fn kernel_flagged_failure_keeps_the_others() {
    let n = 300;
    let blow: Vec<usize> = vec![];
    let flag: Vec<usize> = (0..n).filter(|i| i % 7 == 3).collect();
    let mut want = Wob::new(n, 9, &blow, &flag);
    let want_status = reference(&mut want, 1000);
    let mut w = Wob::new(n, 9, &blow, &flag);
    let deployed = deploy_wobble(TeamChoice::Host(HostConfig::default())).unwrap();
    let mut runner = eagle::until_done(&deployed, 1000, w.planes()).unwrap();
    let report = runner.run().unwrap();
    let want_failed = want_status.iter().filter(|&&s| s == Status::Failed).count();
    // Samples that start late finish before their `fail_at`.
    assert!(want_failed > 30 && want_failed <= flag.len());
    assert_eq!(report.failed, want_failed);
    assert_eq!(runner.status(), &want_status[..]);
    drop(runner);
    assert_eq!(w.bits(), want.bits());
}

/// The oscillator with many steps, for stopping mid-run.
struct Long {
    omega: Vec<f64>,
    x: Vec<f64>,
    v: Vec<f64>,
    t: Vec<f64>,
}

const LONG_DT: f64 = 2e-5;

impl Long {
    fn new(n: usize) -> Self {
        let e = common::Ens::varied(n, 3);
        Long {
            omega: e.omega,
            x: e.x,
            v: e.v,
            t: e.t,
        }
    }
    fn planes(&mut self) -> OscillatorPlanes<'_> {
        OscillatorPlanes {
            omega: &self.omega,
            t_end: 1.0,
            dt: LONG_DT,
            x: &mut self.x,
            v: &mut self.v,
            t: &mut self.t,
        }
    }
    fn bits(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .chain(&self.t)
            .map(|f| f.to_bits())
            .collect()
    }
}

/// Runs to the end, stopping it from another thread after `after` (by cancel, or by the
/// time limit), then resuming until done. Returns the stops seen.
fn stop_and_resume(
    runner: &mut Runner<'_, Oscillator>,
    after: Duration,
    by_cancel: bool,
) -> Vec<Stop> {
    let handle = runner.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(after);
        if by_cancel {
            handle.cancel();
        }
    });
    let first = runner.run().unwrap();
    canceller.join().unwrap();
    let mut stops = vec![first.stop];
    // A cancel that came after the run ended is still pending: it stops the next call.
    while *stops.last().unwrap() != Stop::Done {
        stops.push(runner.resume().unwrap().stop);
    }
    stops
}

#[test]
fn cancel_and_time_limit_then_resume_equal_an_uninterrupted_run() {
    let n = 3000;
    let teams = [
        TeamChoice::Host(HostConfig::default()),
        TeamChoice::EmulatedDevice,
    ];
    for choice in teams {
        let emulated = choice == TeamChoice::EmulatedDevice;
        let n = if emulated { n / 2 } else { n };
        let deployed = eagle::deploy_on(Oscillator, choice.clone()).unwrap();
        let mut want = Long::new(n);
        let mut r = eagle::until_done(&deployed, 100_000, want.planes()).unwrap();
        assert_eq!(r.run().unwrap().stop, Stop::Done);
        r.to_host().unwrap();
        drop(r);
        for by_cancel in [true, false] {
            let mut got = Long::new(n);
            let options = if by_cancel {
                Options::new(100_000)
            } else {
                Options::new(100_000).time_limit(Duration::from_millis(15))
            };
            let mut r = eagle::until_done_with(&deployed, options, got.planes()).unwrap();
            let stops = stop_and_resume(&mut r, Duration::from_millis(20), by_cancel);
            assert!(r.status().iter().all(|&s| s == Status::Finished));
            r.to_host().unwrap();
            drop(r);
            let why = if by_cancel {
                Stop::Cancelled
            } else {
                Stop::TimeLimit
            };
            assert!(stops.contains(&why), "{choice:?}: {stops:?}");
            assert_eq!(got.bits(), want.bits(), "{choice:?} {stops:?}");
        }
    }
}

#[test]
fn a_cancelled_run_leaves_consistent_planes_and_statuses() {
    let mut l = Long::new(500);
    let deployed = eagle::deploy(Oscillator).unwrap();
    let mut r = eagle::until_done(&deployed, 100_000, l.planes()).unwrap();
    r.cancel_handle().cancel();
    let rep = r.run().unwrap();
    assert_eq!((rep.stop, rep.launches, rep.steps), (Stop::Cancelled, 0, 0));
    assert!(r.status().iter().all(|&s| s == Status::Active));
    let rep = r.resume().unwrap();
    assert_eq!(rep.stop, Stop::Done);
    assert!(matches!(r.resume(), Err(Error::NothingToResume)));
}

fn wob_oracle(n: usize) -> Wob {
    let mut w = Wob::new(n, 11, &[3], &[5]);
    reference(&mut w, 200);
    w
}

/// Runs a wobble ensemble on an emulated device with `faults`; returns the error and
/// whether the caller's planes are exactly as before the run.
fn faulty(faults: FaultPlan, options: Options) -> (Option<Error>, bool, Wob) {
    let mut w = Wob::new(700, 11, &[3], &[5]);
    let before = w.clone();
    let deployed = deploy_wobble(TeamChoice::EmulatedDeviceWith(faults)).unwrap();
    let mut r = eagle::until_done_with(&deployed, options, w.planes()).unwrap();
    let out = r.run().and_then(|_| r.to_host());
    let status = r.status().to_vec();
    drop(r);
    let err = out.err();
    if err.is_some() {
        assert!(status.iter().all(|&s| s == Status::Active));
    }
    let untouched = w == before;
    (err, untouched, w)
}

/// Runs with the fault `plan(k)` for k = 0, 1, 2, ... until a run goes through: every
/// allocation (or launch) of the run fails in turn. Each failing run must give the typed
/// error `check` accepts for `k`, leave the caller's planes as they were and its statuses
/// active; the run that goes through must equal the reference. Returns the errors, one per
/// fault point: how many there are is counted here, never pinned (it changes whenever the
/// device path allocates or launches differently; the contract is that *every* point fails
/// cleanly).
fn every_fault_point(
    what: &str,
    plan: impl Fn(u64) -> FaultPlan,
    options: Options,
    check: impl Fn(&Error, u64) -> bool,
) -> Vec<Error> {
    let mut errors = Vec::new();
    for k in 0.. {
        assert!(k < 100_000, "{what}: still failing at fault point {k}");
        match faulty(plan(k), options.clone()) {
            (Some(e), untouched, _) => {
                assert!(check(&e, k), "{what}: fault point {k}: {e}");
                assert!(
                    untouched,
                    "{what}: fault point {k}: caller's planes changed"
                );
                errors.push(e);
            }
            (None, _, w) => {
                assert_eq!(w.bits(), wob_oracle(700).bits(), "{what}: after {k}");
                break;
            }
        }
    }
    errors
}

/// `(allocation, bytes, bytes in use)` from an emulated out-of-memory error.
fn oom_numbers(e: &Error) -> (u64, u64, u64) {
    let Error::DeviceOutOfMemory { message: m, .. } = e else {
        panic!("not an out-of-memory error: {e}");
    };
    let nums: Vec<u64> = m
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(
        nums.len(),
        3,
        "allocation N of B B failed (U B in use): {m}"
    );
    (nums[0], nums[1], nums[2])
}

/// The entry an emulated kernel trap names: `launch N (Entry) trapped`.
fn trapped_entry(e: &Error) -> &str {
    let Error::KernelTrap { message: m, .. } = e else {
        panic!("not a kernel trap: {e}");
    };
    m.split(['(', ')']).nth(1).unwrap_or("")
}

#[test]
fn injected_device_faults_are_typed_errors_and_leave_the_planes() {
    let gather = || {
        Options::new(200)
            .compaction(Compaction::Always)
            .device_compaction(DeviceCompaction::Gather)
    };
    let no_compaction = || Options::new(200).compaction(Compaction::Off);
    let graph = || {
        Options::new(200)
            .arm(Arm::Graph)
            .compaction(Compaction::Off)
    };
    let oom = |k: u64| FaultPlan {
        fail_alloc: Some(k as usize),
        ..FaultPlan::none()
    };
    let oom_at = |e: &Error, k: u64| {
        let prefix = format!("device out of memory: emulated: allocation {k} of ");
        e.to_string().starts_with(&prefix) && oom_numbers(e).0 == k
    };
    // Out of memory at every allocation: uploading the planes, the compaction buffers.
    let plain = every_fault_point("oom", oom, no_compaction(), oom_at);
    let compacting = every_fault_point("oom, gather", oom, gather(), oom_at);
    println!(
        "allocations: {} without compaction, {} with gather",
        plain.len(),
        compacting.len()
    );
    assert!(!plain.is_empty(), "the planes need device memory");
    assert_eq!(
        oom_numbers(&plain[0]).2,
        0,
        "nothing in use before the first"
    );
    assert!(
        compacting.len() > plain.len(),
        "compaction allocates buffers of its own: {} vs {} allocations",
        compacting.len(),
        plain.len()
    );
    // A device too small for the planes: the allocation that would overflow it fails.
    let small = FaultPlan {
        memory_bytes: Some(10_000),
        ..FaultPlan::none()
    };
    let (err, untouched, _) = faulty(small, Options::new(200));
    let err = err.expect("10 kB cannot hold 700 samples' planes");
    let (_, bytes, in_use) = oom_numbers(&err);
    assert!(in_use <= 10_000 && in_use + bytes > 10_000, "{err}");
    assert!(untouched, "caller's planes changed");
    // A trap at every launch: steps, compaction helpers, graph replays.
    let trap = |k: u64| FaultPlan {
        trap_launch: Some(k),
        ..FaultPlan::none()
    };
    let trap_at = |e: &Error, k: u64| {
        let prefix = format!("a kernel trapped on the device: emulated: launch {k} (");
        matches!(e, Error::KernelTrap { .. }) && e.to_string().starts_with(&prefix)
    };
    let steps = ["hawk_wobble", "hawk_wobble_indexed"];
    for (what, options) in [("trap", Options::new(200)), ("trap, graph replay", graph())] {
        let traps = every_fault_point(what, trap, options, trap_at);
        assert!(!traps.is_empty(), "{what}: no launch");
        assert!(steps.contains(&trapped_entry(&traps[0])), "{}", traps[0]);
    }
    let traps = every_fault_point("trap, gather", trap, gather(), trap_at);
    println!("launches with gather: {}", traps.len());
    let helpers: Vec<&str> = traps
        .iter()
        .map(trapped_entry)
        .filter(|e| !steps.contains(e))
        .collect();
    assert!(
        helpers
            .iter()
            .any(|e| ["hawk_count_chunks", "hawk_scan_counts", "hawk_write_chunks"].contains(e)),
        "a trap in a compaction helper: {helpers:?}"
    );
    // The context lost before every launch.
    let lost = |k: u64| FaultPlan {
        lose_context_at_launch: Some(k),
        ..FaultPlan::none()
    };
    let lost_at = |e: &Error, k: u64| {
        matches!(e, Error::ContextLost { .. })
            && e.to_string()
                == format!("the device context was lost: emulated: context lost at launch {k}")
    };
    for (what, options) in [("lost", gather()), ("lost, graph replay", graph())] {
        assert!(!every_fault_point(what, lost, options, lost_at).is_empty());
    }
    // A fault planned after the run's last launch: the run completes, planes fully updated.
    let late = FaultPlan {
        trap_launch: Some(1_000_000),
        ..FaultPlan::none()
    };
    let (err, _, w) = faulty(late, Options::new(200));
    assert!(err.is_none());
    assert_eq!(w.bits(), wob_oracle(700).bits());
}

#[test]
fn after_a_fault_the_next_run_starts_again_from_the_callers_planes() {
    let mut w = Wob::new(700, 11, &[3], &[5]);
    let faults = FaultPlan {
        lose_context_at_launch: Some(2),
        ..FaultPlan::none()
    };
    let deployed = deploy_wobble(TeamChoice::EmulatedDeviceWith(faults)).unwrap();
    let mut r = eagle::until_done(&deployed, 200, w.planes()).unwrap();
    assert!(matches!(r.run(), Err(Error::ContextLost { .. })));
    // A fresh device context (the plan counts again from 0): lost again, still typed.
    assert!(matches!(r.run(), Err(Error::ContextLost { .. })));
    drop(r);
    let clean = deploy_wobble(TeamChoice::EmulatedDevice).unwrap();
    let mut r = eagle::until_done(&clean, 200, w.planes()).unwrap();
    r.run().unwrap();
    r.to_host().unwrap();
    drop(r);
    assert_eq!(w.bits(), wob_oracle(700).bits());
}

/// Resident set size in bytes, from /proc/self/statm.
fn rss() -> usize {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = s
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Thousands of back-to-back runs of varied shapes on one deployment per team; the
/// resident set must not grow beyond a small bound once warmed up.
#[test]
#[ignore = "a soak test (minutes): run with --ignored"]
fn soak() {
    for (choice, runs) in [
        (TeamChoice::Host(HostConfig::default()), 10_000usize),
        (TeamChoice::EmulatedDevice, 3000),
    ] {
        let deployed = deploy_wobble(choice.clone()).unwrap();
        let shape = |i: usize| (1 + (i * 7919) % 2000, 1 + (i as u64 * 31) % 150);
        let one = |i: usize| {
            let (n, max_steps) = shape(i);
            let mut w = ensemble(n, i as u64);
            let c = [Compaction::Off, Compaction::Auto, Compaction::Always][i % 3];
            let a = [Arm::Simulate, Arm::Graph, Arm::GraphWhile][i % 3];
            let options = Options::new(max_steps).compaction(c).arm(a);
            let mut r = eagle::until_done_with(&deployed, options, w.planes()).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            assert_eq!(rep.finished + rep.failed + rep.capped, n);
        };
        for i in 0..200 {
            one(i);
        }
        let before = rss();
        let t = std::time::Instant::now();
        for i in 0..runs {
            one(i);
        }
        let after = rss();
        let grew = after as f64 - before as f64;
        println!(
            "soak {choice:?}: {runs} runs in {:.1} s, RSS before {} KiB, after {} KiB, growth {} KiB",
            t.elapsed().as_secs_f64(),
            before / 1024,
            after / 1024,
            grew as i64 / 1024
        );
        assert!(grew < 8.0 * 1024.0 * 1024.0, "RSS grew by {grew} B");
    }
}

/// NaN keys in the reorder plane (both signs, with infinities and signed zeros around them):
/// no panic, one reorder, and the results of a run without reorder, bit for bit, on the
/// host team (several lane widths and thread counts) and the emulated device (both
/// compaction strategies, with and without compaction). Keys from an input plane (`omega`)
/// and from a state plane (`t`); a NaN there makes the sample fail on its first step.
/// Ensembles of a few dozen samples matter: there `sort_by` with a comparator that is not
/// a total order (`partial_cmp().unwrap_or(Equal)`) detects it and panics.
#[test]
fn nan_reorder_keys_neither_panic_nor_change_results() {
    for (n, seed) in [(25, 1), (40, 2), (64, 3), (64, 4), (100, 5), (3000, 6)] {
        nan_reorder_keys(n, seed);
    }
}

fn nan_reorder_keys(n: usize, seed: u64) {
    let mut start = common::Ens::varied(n, seed);
    let mut r = common::Rng(seed + 100);
    let odd = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
    ];
    for i in 0..n {
        // Every third sample on average gets an odd key, NaN most often.
        match r.next_u64() % 9 {
            0 | 1 => start.omega[i] = odd[(r.next_u64() % 2) as usize],
            2 => start.omega[i] = odd[(r.next_u64() % 6) as usize],
            3 => start.t[i] = odd[(r.next_u64() % 2) as usize],
            _ => {}
        }
    }
    start.omega[n / 2] = f64::NAN;
    let teams = [
        (TeamChoice::Host(HostConfig::default()), Options::new(2000)),
        (
            TeamChoice::Host(HostConfig {
                threads: Some(3),
                lanes: Some(4),
                isa: None,
            }),
            Options::new(2000).compaction(Compaction::Always),
        ),
        (
            TeamChoice::Host(HostConfig {
                threads: Some(1),
                lanes: Some(1),
                isa: None,
            }),
            Options::new(2000),
        ),
        (TeamChoice::EmulatedDevice, Options::new(2000)),
        (
            TeamChoice::EmulatedDevice,
            Options::new(2000)
                .compaction(Compaction::Always)
                .device_compaction(DeviceCompaction::Gather),
        ),
        (
            TeamChoice::EmulatedDevice,
            Options::new(2000)
                .compaction(Compaction::Off)
                .device_compaction(DeviceCompaction::IndexList),
        ),
    ];
    let run = |choice: &TeamChoice, options: Options| {
        let mut e = start.clone();
        let deployed = eagle::deploy_on(Oscillator, choice.clone()).unwrap();
        let mut runner = eagle::until_done_with(&deployed, options, e.planes(1.0, 1e-3)).unwrap();
        let report = runner.run().unwrap();
        runner.to_host().unwrap();
        let status = runner.status().to_vec();
        drop(runner);
        (e, status, report)
    };
    for (choice, options) in teams {
        let (want, want_status, plain) = run(&choice, options.clone());
        assert_eq!(plain.reorders, 0);
        let failed = want_status.iter().filter(|&&s| s == Status::Failed).count();
        assert!(failed > 0, "NaN samples fail");
        for key in ["omega", "t"] {
            let what = format!("n = {n}, {choice:?} {options:?} by {key}");
            let o = options.clone().reorder(Reorder::ByPlane(key.into()));
            let (got, status, report) = run(&choice, o);
            assert_eq!(report.reorders, 1, "{what}");
            assert_eq!(status, want_status, "{what}");
            assert!(got.bits() == want.bits(), "planes differ: {what}");
            assert!(
                got.omega
                    .iter()
                    .zip(&start.omega)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "input plane changed: {what}"
            );
        }
    }
}
