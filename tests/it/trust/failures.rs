//! Samples that fail: 1% of a batch blow up, or the kernel flags them; the others finish
//! untouched.

use crate::trust::wob::{Wob, deploy_wobble, reference};
use eagle::{HostConfig, Status, Stop, Target};

/// 1% of 10,000 samples blow up (to infinity, then NaN); the rest finish untouched.
#[test]
fn one_percent_blow_up() {
    let n = 10_000;
    let blow: Vec<usize> = (0..n).filter(|i| i % 100 == 37).collect();
    for choice in [Target::Host(HostConfig::default()), Target::Emulated] {
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
    let deployed = deploy_wobble(Target::Host(HostConfig::default())).unwrap();
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
