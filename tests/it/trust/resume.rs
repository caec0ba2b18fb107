//! Stopping a run (cancel, time limit, from another thread) and resuming it gives the
//! bits of an uninterrupted run.

use crate::common;
use eagle::hawk::builtin::Oscillator;
use eagle::{Error, HostConfig, Options, Runner, Status, Stop, Target};
use std::time::Duration;

/// The oscillator's step for stopping mid-run: with `common::Ens::varied`, many steps.
const LONG_DT: f64 = 2e-5;

/// The ensemble the tests stop and resume: `n` varied oscillators.
fn long(n: usize) -> common::Ens {
    common::Ens::varied(n, 3)
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
    let teams = [Target::Host(HostConfig::default()), Target::Emulated];
    for choice in teams {
        let emulated = choice == Target::Emulated;
        let n = if emulated { n / 2 } else { n };
        let deployed = eagle::deploy(Oscillator, choice.clone()).unwrap();
        let mut want = long(n);
        let mut r = eagle::until_done(&deployed, 100_000, want.planes(1.0, LONG_DT)).unwrap();
        assert_eq!(r.run().unwrap().stop, Stop::Done);
        r.to_host().unwrap();
        drop(r);
        for by_cancel in [true, false] {
            let mut got = long(n);
            let options = if by_cancel {
                Options::new(100_000)
            } else {
                Options::new(100_000).time_limit(Duration::from_millis(15))
            };
            let mut r = eagle::until_done(&deployed, options, got.planes(1.0, LONG_DT)).unwrap();
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
    let mut l = long(500);
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best).unwrap();
    let mut r = eagle::until_done(&deployed, 100_000, l.planes(1.0, LONG_DT)).unwrap();
    r.cancel_handle().cancel();
    let rep = r.run().unwrap();
    assert_eq!((rep.stop, rep.launches, rep.steps), (Stop::Cancelled, 0, 0));
    assert!(r.status().iter().all(|&s| s == Status::Active));
    let rep = r.resume().unwrap();
    assert_eq!(rep.stop, Stop::Done);
    assert!(matches!(r.resume(), Err(Error::NothingToResume)));
}
