//! The oscillator on the host team equals the plain scalar reference loop bit for bit, for
//! every thread count, k, lane width, instruction set, compaction and reorder setting.

use crate::common::{Ens, reference};
use eagle::hawk::Steps;
use eagle::hawk::builtin::Oscillator;
use eagle::hawk_host::LANE_WIDTHS;
use eagle::{Compaction, HostConfig, Isa, Options, Reorder, RunReport, Target};

const T_END: f64 = 1.0;
const DT: f64 = 1e-3;

fn run_host(e: &mut Ens, cfg: HostConfig, options: Options) -> (RunReport, Vec<bool>) {
    let deployed = eagle::deploy(Oscillator, Target::Host(cfg)).unwrap();
    let planes = e.planes(T_END, DT);
    let mut runner = eagle::until_done(&deployed, options, planes).unwrap();
    let report = runner.run().unwrap();
    runner.to_host().unwrap();
    (report, runner.terminated().to_vec())
}

fn isas() -> Vec<Isa> {
    [Isa::Portable, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|i| i.available())
        .collect()
}

/// Runs one configuration and compares it with the reference, bit for bit.
fn check(n: usize, seed: u64, max_steps: u64, cfg: HostConfig, options: Options) -> RunReport {
    let start = Ens::varied(n, seed);
    let mut want = start.clone();
    let want_done = reference(&mut want, T_END, DT, max_steps);
    let mut got = start.clone();
    let what = format!("{cfg:?} {options:?}");
    let (report, done) = run_host(&mut got, cfg, options.max_steps(max_steps));
    assert_eq!(got.omega, start.omega, "input plane changed: {what}");
    assert!(
        got.bits() == want.bits(),
        "planes differ from the reference: {what}"
    );
    assert_eq!(done, want_done, "terminated flags differ: {what}");
    assert_eq!(report.done(), want_done.iter().all(|&d| d), "{what}");
    report
}

#[test]
fn every_lane_width_and_isa_matches_reference() {
    for isa in isas() {
        for &lanes in isa.lane_widths() {
            let cfg = HostConfig {
                threads: Some(2),
                lanes: Some(lanes),
                isa: Some(isa),
            };
            // 1037 samples: not a multiple of any width, and more than one chunk.
            check(1037, 7, 10_000, cfg, Options::new(1));
        }
        // A width the instruction set's loops are not compiled for is refused by name.
        for lanes in LANE_WIDTHS
            .into_iter()
            .filter(|w| !isa.lane_widths().contains(w))
        {
            let cfg = HostConfig {
                threads: Some(2),
                lanes: Some(lanes),
                isa: Some(isa),
            };
            let Err(err) = eagle::deploy(Oscillator, Target::Host(cfg)) else {
                panic!("{lanes} lanes on {isa:?} were not refused");
            };
            let msg = err.to_string();
            assert!(
                msg.contains(&format!(
                    "lane width {lanes} is not compiled for instruction set"
                )),
                "{msg}"
            );
        }
    }
    // On x86-64 the portable loops stop at 8 lanes and AVX2's at 32; AVX-512 runs every
    // width.
    #[cfg(target_arch = "x86_64")]
    {
        assert_eq!(Isa::Portable.lane_widths(), [1, 2, 4, 8]);
        assert_eq!(Isa::Avx2.lane_widths(), [1, 2, 4, 8, 12, 16, 32]);
    }
    assert_eq!(Isa::Avx512.lane_widths(), LANE_WIDTHS);
}

#[test]
fn every_thread_count_and_k_matches_reference() {
    for threads in [1, 2, 3, 5] {
        for steps in [
            Steps::Fixed(1),
            Steps::Fixed(7),
            Steps::Fixed(64),
            Steps::Fixed(1000),
            Steps::Auto,
        ] {
            let cfg = HostConfig {
                threads: Some(threads),
                ..HostConfig::default()
            };
            check(2100, 11, 10_000, cfg, Options::new(1).steps(steps));
        }
    }
}

#[test]
fn compaction_and_reorder_keep_results_and_order() {
    for compaction in [Compaction::Off, Compaction::Auto, Compaction::Always] {
        for reorder in [
            Reorder::Off,
            Reorder::ByPlane("omega".into()),
            Reorder::ByPlane("t".into()),
        ] {
            for lanes in [1, 4, 16] {
                let cfg = HostConfig {
                    threads: Some(2),
                    lanes: Some(lanes),
                    isa: None,
                };
                let options = Options::new(1)
                    .steps(Steps::Fixed(50))
                    .compaction(compaction)
                    .reorder(reorder.clone());
                let r = check(3001, 5, 10_000, cfg, options);
                assert_eq!(r.reorders, u64::from(reorder != Reorder::Off));
                if compaction == Compaction::Off {
                    assert_eq!(r.compactions, 0);
                } else {
                    assert!(
                        r.compactions > 0,
                        "{compaction:?}: samples finish at different steps"
                    );
                }
            }
        }
    }
}

#[test]
fn capped_runs_match_reference_and_report_not_done() {
    for max_steps in [1, 63, 64, 65, 300] {
        for compaction in [Compaction::Off, Compaction::Always] {
            let r = check(
                517,
                3,
                max_steps,
                HostConfig::default(),
                Options::new(1).compaction(compaction),
            );
            assert_eq!(r.steps, max_steps);
            assert!(!r.done());
        }
    }
}

#[test]
fn compaction_shrinks_the_slots_later_launches_pass_over() {
    let r = check(
        4096,
        9,
        10_000,
        HostConfig::default(),
        Options::new(1)
            .steps(Steps::Fixed(32))
            .compaction(Compaction::Always),
    );
    assert_eq!(r.slots_by_launch[0], 4096);
    assert!(r.slots_by_launch.windows(2).all(|w| w[1] <= w[0]));
    assert!(*r.slots_by_launch.last().unwrap() < 4096 / 2);
    for (slots, active) in r.slots_by_launch.iter().skip(1).zip(&r.active_by_launch) {
        assert_eq!(
            slots, active,
            "after a compaction only active samples remain"
        );
    }
}

/// One deployed team runs ensembles of different sizes in turn: the working buffers it
/// keeps between runs never leak one run's state into the next.
#[test]
fn kept_buffers_never_leak_between_runs() {
    let deployed = eagle::deploy(Oscillator, Target::Host(HostConfig::default())).unwrap();
    for (n, seed) in [(1000, 1), (37, 2), (1000, 3), (4000, 4), (5, 5)] {
        let start = Ens::varied(n, seed);
        let mut want = start.clone();
        let want_done = reference(&mut want, T_END, DT, 700);
        let mut got = start.clone();
        let mut runner = eagle::until_done(&deployed, 700, got.planes(T_END, DT)).unwrap();
        runner.run().unwrap();
        let done = runner.terminated().to_vec();
        drop(runner);
        assert!(got.bits() == want.bits(), "n = {n}: planes differ");
        assert_eq!(done, want_done, "n = {n}: flags differ");
    }
    let eagle::Team::Host(h) = deployed.team() else {
        panic!("deployed on the host")
    };
    // The last run's three mutable planes (x, v, t) of 5 samples, at least, are kept.
    assert!(h.buffers().held_bytes() >= 3 * 5 * 8);
    h.buffers().clear();
    assert_eq!(h.buffers().held_bytes(), 0);
}
