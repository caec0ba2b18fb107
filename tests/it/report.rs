//! RunReport semantics for the seed's run and its "Try this" (max_steps 100).

use crate::common::Ens;
use eagle::hawk::Steps;
use eagle::hawk::builtin::Oscillator;
use eagle::{Options, RunReport};
use std::collections::BTreeMap;

fn seed_run(n: usize, options: Options) -> (RunReport, Ens) {
    let mut e = Ens::seed(n);
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best).unwrap();
    let planes = e.planes(1.0, 1e-3);
    let mut runner = eagle::until_done(&deployed, options, planes).unwrap();
    let report = runner.run().unwrap();
    runner.to_host().unwrap();
    drop(runner);
    (report, e)
}

#[test]
fn seed_run_reports_the_seed_numbers() {
    let (r, e) = seed_run(100_000, Options::new(10_000));
    assert_eq!(r.build_s, 0.0, "nothing to build on the host team");
    assert_eq!(r.launches, 16);
    assert_eq!(r.steps, 1024);
    assert_eq!(r.launches_by_k, BTreeMap::from([(64, 16)]));
    assert!(r.done());
    assert_eq!(r.active, 0);
    assert_eq!(r.team, eagle::TeamKind::Host);
    assert_eq!(r.samples, 100_000);
    assert_eq!(
        r.to_string(),
        "launches: 16, steps: 1024, launches_by_k: {64: 16}\ndone: true"
    );
    // Every sample stopped at the first step with t >= 1, not at the end of a launch.
    assert!(e.t.iter().all(|&t| (1.0..1.0 + 1e-3).contains(&t)));
}

#[test]
fn max_steps_100_stops_at_the_cap() {
    let (r, e) = seed_run(100_000, Options::new(100));
    assert!(!r.done());
    assert_eq!(r.steps, 100);
    assert_eq!(r.launches, 2);
    assert_eq!(r.launches_by_k, BTreeMap::from([(36, 1), (64, 1)]));
    assert_eq!(r.active, 100_000);
    assert!(
        e.t.iter()
            .all(|&t| approx::relative_eq!(t, 0.1, epsilon = 1e-12))
    );
}

#[test]
fn fixed_k_is_used_for_every_launch_and_capped_by_max_steps() {
    let (r, _) = seed_run(1000, Options::new(10_000).steps(Steps::Fixed(300)));
    assert_eq!(r.launches_by_k, BTreeMap::from([(300, 4)]));
    assert_eq!(r.steps, 1200);
    let (r, _) = seed_run(1000, Options::new(500).steps(Steps::Fixed(300)));
    assert_eq!(r.launches_by_k, BTreeMap::from([(200, 1), (300, 1)]));
    assert!(!r.done());
}

#[test]
fn a_second_run_continues_from_the_planes() {
    let mut e = Ens::seed(64);
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best).unwrap();
    let planes = e.planes(1.0, 1e-3);
    let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
    let first = runner.run().unwrap();
    assert!(first.done());
    assert_eq!(
        (first.startup, first.startup_s),
        (Some(eagle::ModuleSource::Host), 0.0)
    );
    let t_after_first = runner.plane("t").unwrap().to_vec();
    // Every sample is past t_end: one more step each, then done.
    let second = runner.run().unwrap();
    assert_eq!(second.build_s, 0.0);
    assert_eq!(
        (second.startup, second.startup_s),
        (None, 0.0),
        "first run only"
    );
    assert_eq!(second.launches, 1);
    assert!(second.done());
    let t_after_second = runner.plane("t").unwrap();
    for (a, b) in t_after_first.iter().zip(t_after_second) {
        assert_eq!(*b, a + 1e-3);
    }
}
