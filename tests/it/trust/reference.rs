//! Random ensembles and settings against the scalar reference, bit for bit, on the host
//! team and the emulated device.
//!
//! Proptest keeps the seeds of past failures next to this file, in
//! `reference.proptest-regressions` (named in the config: its default would look for a
//! `proptest-regressions/` folder beside `tests/it/`, as `main.rs` is there), and reruns
//! them first.

use crate::trust::wob::{Wob, deploy_wobble, ensemble, reference};
use eagle::hawk::Steps;
use eagle::{
    Arm, Compaction, DeviceCompaction, HostConfig, Options, Reorder, Status, Stop, Target,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::time::Duration;

/// Runs `w` to the end; with `resume_every`, a zero time limit stops every call after one
/// launch and the run is resumed until it ends (a resume point at every launch boundary).
fn run(
    w: &mut Wob,
    choice: Target,
    options: Options,
    resume_every: bool,
) -> (Vec<Status>, Vec<Stop>) {
    let options = if resume_every {
        options.time_limit(Duration::ZERO)
    } else {
        options
    };
    let deployed = deploy_wobble(choice).unwrap();
    let mut runner = eagle::until_done(&deployed, options, w.planes()).unwrap();
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

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    })]

    /// Host team: every thread count, lane width, k, cap, compaction, reorder and resume
    /// point gives the reference's planes and statuses bit for bit, in the caller's order.
    #[test]
    fn host_equals_reference(
        n in 1usize..3000,
        seed in any::<u64>(),
        options in settings(),
        threads in 1usize..4,
        lanes in prop::sample::select(eagle::Isa::detect().lane_widths().to_vec()),
        resume_every in prop::bool::weighted(0.3),
    ) {
        let mut want = ensemble(n, seed);
        let want_status = reference(&mut want, options.max_steps);
        let mut got = ensemble(n, seed);
        let cfg = HostConfig { threads: Some(threads), lanes: Some(lanes), isa: None };
        let (status, stops) = run(&mut got, Target::Host(cfg), options.clone(), resume_every);
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
        let (status, _) = run(&mut got, Target::Emulated, o, resume_every);
        prop_assert_eq!(&status, &want_status);
        prop_assert!(got.bits() == want.bits(), "planes differ from the reference");
    }
}

#[test]
fn empty_ensemble_is_the_documented_error() {
    for choice in [Target::Host(HostConfig::default()), Target::Emulated] {
        let mut w = Wob::new(0, 1, &[], &[]);
        let deployed = deploy_wobble(choice).unwrap();
        let err = eagle::until_done(&deployed, 10, w.planes()).err().unwrap();
        assert_eq!(
            err.to_string(),
            "the ensemble is empty: plane `g` has length 0 (give at least one sample)"
        );
    }
}
