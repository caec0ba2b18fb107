//! Without a CUDA driver: `deploy` falls back to the host team, asking for the device is a
//! clear error, and `device_props()` is a clear error. On a machine with a driver these
//! tests print "skipped: ..." and check nothing.

use eagle::hawk::builtin::Oscillator;
use eagle::{Error, Target};

fn no_driver() -> bool {
    match eagle::device_unavailable_reason() {
        Some(_) => true,
        None => {
            println!(
                "skipped: a CUDA driver and GPU are present (this test is for machines without one)"
            );
            false
        }
    }
}

#[test]
fn deploy_falls_back_to_the_host() {
    if !no_driver() {
        return;
    }
    let d = eagle::deploy(Oscillator, eagle::Target::Best).unwrap();
    assert_eq!(d.team().kind(), eagle::TeamKind::Host);
    let d = eagle::deploy(Oscillator, Target::Best).unwrap();
    assert_eq!(d.team().kind(), eagle::TeamKind::Host);
}

#[test]
fn explicit_device_is_a_clear_error() {
    if !no_driver() {
        return;
    }
    let reason = eagle::device_unavailable_reason().unwrap();
    match eagle::deploy(Oscillator, Target::Device(0)) {
        Err(Error::DeviceUnavailable(r)) => {
            assert_eq!(r, reason);
            let msg = Error::DeviceUnavailable(r).to_string();
            assert!(msg.starts_with("device team unavailable: "), "{msg}");
            assert!(msg.contains("CUDA") || msg.contains("GPU"), "{msg}");
        }
        other => panic!("expected DeviceUnavailable, got {other:?}"),
    }
}

#[test]
fn device_props_is_a_clear_error() {
    if !no_driver() {
        return;
    }
    match eagle::device_props() {
        Err(Error::DeviceUnavailable(r)) => assert!(!r.is_empty()),
        other => panic!("expected DeviceUnavailable, got {other:?}"),
    }
}

#[test]
fn peaks_from_attributes() {
    // An H200-like card: 132 SMs, sm_90, 1.98 GHz, 2.619 GHz HBM3 on a 6144-bit bus.
    let p = eagle::DeviceProps::from_attributes(
        "test".into(),
        132,
        (9, 0),
        1_980_000,
        2_619_000,
        6144,
        1 << 30,
        12080,
    );
    assert_eq!(p.fp32_per_sm, 128);
    assert_eq!(p.fp64_ratio, 0.5);
    approx::assert_abs_diff_eq!(p.fp32_flops, 66.9e12, epsilon = 0.1e12);
    approx::assert_relative_eq!(p.fp64_flops, p.fp32_flops / 2.0, max_relative = 1e-12);
    approx::assert_abs_diff_eq!(p.memory_bandwidth, 4.02e12, epsilon = 0.01e12);
}
