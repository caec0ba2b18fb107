//! The device tests on a real CUDA GPU: the same bodies as `device_emulated.rs` (the
//! [`device_tests!`] set), plus what only a GPU has. Every test here is
//! `#[ignore = "needs a CUDA GPU"]`, so `cargo test` on a machine without one reports them
//! as ignored, never as passed; `scripts/gpu-check.sh` runs them with `--ignored` on a GPU
//! machine, where a missing GPU or PTX fails them, saying why.

use crate::common::device::{GPU, require};
use eagle::Target;

crate::device_tests!(gpu, Target::Device(0), GPU, ignore);

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_device_props() {
    require(Target::Device(0));
    let p = eagle::device_props().unwrap();
    println!("{p:#?}");
    assert!(p.sm_count > 0 && p.fp64_flops > 0.0 && p.memory_bandwidth > 0.0);
    let d = eagle::deploy(eagle::hawk::builtin::Oscillator, eagle::Target::Best).unwrap();
    assert_eq!(
        d.team().kind(),
        eagle::TeamKind::Device,
        "deploy must pick the GPU when one is usable"
    );
}
