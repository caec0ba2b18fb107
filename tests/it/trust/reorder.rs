//! NaN reorder keys: no panic, and the results of a run without reorder.

use crate::common;
use eagle::hawk::builtin::Oscillator;
use eagle::{Compaction, DeviceCompaction, HostConfig, Options, Reorder, Status, Target};

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
        (Target::Host(HostConfig::default()), Options::new(2000)),
        (
            Target::Host(HostConfig {
                threads: Some(3),
                lanes: Some(4),
                isa: None,
            }),
            Options::new(2000).compaction(Compaction::Always),
        ),
        (
            Target::Host(HostConfig {
                threads: Some(1),
                lanes: Some(1),
                isa: None,
            }),
            Options::new(2000),
        ),
        (Target::Emulated, Options::new(2000)),
        (
            Target::Emulated,
            Options::new(2000)
                .compaction(Compaction::Always)
                .device_compaction(DeviceCompaction::Gather),
        ),
        (
            Target::Emulated,
            Options::new(2000)
                .compaction(Compaction::Off)
                .device_compaction(DeviceCompaction::IndexList),
        ),
    ];
    let run = |choice: &Target, options: Options| {
        let mut e = start.clone();
        let deployed = eagle::deploy(Oscillator, choice.clone()).unwrap();
        let mut runner = eagle::until_done(&deployed, options, e.planes(1.0, 1e-3)).unwrap();
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
