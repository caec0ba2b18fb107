//! The same assertions as `device_emulated.rs` on a real CUDA GPU. Without one every test
//! prints "skipped: <reason>" and returns (a skip is not a pass; `scripts/gpu-check.sh`
//! runs these on a GPU machine).

mod common;

use common::device::{ARMS, STRATEGIES, check_against_host, check_all, check_graph_rules};
use eagle::{Arm, Compaction, Options, Reorder, TeamChoice};

fn gpu() -> bool {
    match eagle::device_unavailable_reason() {
        None if eagle::ptx::PTX.is_some() => true,
        None => {
            println!("skipped: this build has no PTX (EAGLE_SKIP_PTX=1)");
            false
        }
        Some(r) => {
            println!("skipped: {r}");
            false
        }
    }
}

#[test]
fn gpu_equals_host_for_every_arm_and_strategy() {
    if !gpu() {
        return;
    }
    check_all(&TeamChoice::Device, 20_000);
}

#[test]
fn gpu_large_ensemble_each_arm_and_strategy() {
    if !gpu() {
        return;
    }
    for arm in ARMS {
        for s in STRATEGIES {
            let o = Options::new(10_000)
                .arm(arm)
                .device_compaction(s)
                .compaction(Compaction::Auto)
                .reorder(Reorder::ByPlane("t".into()));
            let r = check_against_host(&TeamChoice::Device, 300_000, 17, o);
            println!(
                "{} {}: launches {} compactions {} build {:.3} ms notes {:?}",
                r.arm,
                r.compaction_strategy,
                r.launches,
                r.compactions,
                r.build_s * 1e3,
                r.notes
            );
        }
    }
}

#[test]
fn gpu_graph_rules() {
    if !gpu() {
        return;
    }
    check_graph_rules(&TeamChoice::Device, Arm::Graph, 50_000);
    check_graph_rules(&TeamChoice::Device, Arm::GraphWhile, 50_000);
}

#[test]
fn gpu_device_props() {
    if !gpu() {
        return;
    }
    let p = eagle::device_props().unwrap();
    println!("{p:#?}");
    assert!(p.sm_count > 0 && p.fp64_flops > 0.0 && p.memory_bandwidth > 0.0);
    let d = eagle::deploy(eagle::hawk::builtin::Oscillator).unwrap();
    assert_eq!(
        d.team().name(),
        "device",
        "deploy must pick the GPU when one is usable"
    );
}
