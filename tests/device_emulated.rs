//! The emulated device team (the device orchestration and the GPU entries' bodies, run on
//! the CPU with real launch geometry) against the host team: bitwise-equal results for
//! every arm and compaction strategy, capped runs included, and the graph rules.

mod common;

use common::device::{ARMS, check_against_host, check_all, check_graph_rules};
use eagle::{Arm, Compaction, DeviceCompaction, Options, Reorder, TeamChoice};

#[test]
fn emulated_device_equals_host_for_every_arm_and_strategy() {
    check_all(&TeamChoice::EmulatedDevice, 1500);
}

#[test]
fn emulated_device_single_sample_and_one_step_cap() {
    for arm in ARMS {
        for n in [1, 255, 256, 257] {
            check_against_host(&TeamChoice::EmulatedDevice, n, 3, Options::new(1).arm(arm));
            let o = Options::new(10_000)
                .arm(arm)
                .compaction(Compaction::Always)
                .device_compaction(DeviceCompaction::Gather)
                .reorder(Reorder::ByPlane("t".into()));
            check_against_host(&TeamChoice::EmulatedDevice, n, 4, o);
        }
    }
}

#[test]
fn emulated_graph_rules() {
    check_graph_rules(&TeamChoice::EmulatedDevice, Arm::Graph, 700);
    check_graph_rules(&TeamChoice::EmulatedDevice, Arm::GraphWhile, 700);
}

#[test]
fn emulated_graph_while_is_one_replay() {
    let r = check_against_host(
        &TeamChoice::EmulatedDevice,
        900,
        11,
        Options::new(10_000)
            .arm(Arm::GraphWhile)
            .compaction(Compaction::Off),
    );
    assert_eq!(r.graph_replays, 1, "{r:?}");
    assert!(r.notes.is_empty(), "{r:?}");
    assert!(r.done);
}

#[test]
fn device_results_stay_on_the_device_until_to_host() {
    use eagle::hawk::builtin::Oscillator;
    let mut e = common::Ens::varied(300, 8);
    let start = e.clone();
    let deployed = eagle::deploy_on(Oscillator, TeamChoice::EmulatedDevice).unwrap();
    assert_eq!(deployed.team().name(), "device");
    let planes = e.planes(1.0, 1e-3);
    let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
    let report = runner.run().unwrap();
    assert!(report.done);
    assert_eq!(
        runner.plane("x").unwrap(),
        &start.x[..],
        "run() must not copy home"
    );
    runner.to_host().unwrap();
    assert_ne!(runner.plane("x").unwrap(), &start.x[..]);
    assert!(runner.terminated().iter().all(|&d| d));
}
