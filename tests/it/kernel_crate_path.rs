//! A crate that depends on `eagle` only writes its kernels with `#[eagle::hawk::kernel(crate =
//! eagle::hawk)]`: the generated code then names `eagle::hawk::...`, never `::hawk`. Both
//! spellings of the setting (a path, or a path in a string as serde takes it) give a kernel
//! that runs on the host team and matches a plain scalar loop bit for bit.
//!
//! (This test crate could also reach `::hawk`; `hawk-macros`' unit tests check that the
//! expansion names only the given path.)

use eagle::hawk::prelude::*;
use eagle::{HostConfig, Target};

/// `x' = -rate x` by explicit Euler until `t >= t_end`.
#[eagle::hawk::kernel(crate = eagle::hawk, steps = 8)]
pub fn decay(
    rate: Scalar,
    dt: Param,
    t_end: Param,
    terminated: &mut Terminated,
    x: &mut Scalar,
    t: &mut Scalar,
) {
    *x = *x - rate * *x * dt;
    *t += dt;
    *terminated = t.simd_ge(t_end);
}

/// The same in `f32`, with the string form of `crate`.
#[eagle::hawk::kernel(crate = "eagle::hawk", real = "f32")]
pub fn decay32(
    rate: Scalar,
    dt: Param,
    t_end: Param,
    terminated: &mut Terminated,
    x: &mut Scalar,
    t: &mut Scalar,
) {
    *x = *x - rate * *x * dt;
    *t += dt;
    *terminated = t.simd_ge(t_end);
}

const N: usize = 1001;
const DT: f64 = 1e-2;
const T_END: f64 = 1.0;

fn host() -> Target {
    // A fixed width: `lanes: auto` would tune (and remember) a shape for this kernel.
    Target::Host(HostConfig {
        threads: Some(2),
        lanes: Some(4),
        isa: None,
    })
}

#[test]
fn kernel_through_eagle_hawk_runs_on_the_host_team() {
    let rate: Vec<f64> = (0..N).map(|i| 0.5 + i as f64 / N as f64).collect();
    let (mut x, mut t) = (vec![1.0; N], vec![0.0; N]);
    let deployed = eagle::deploy(Decay, host()).unwrap();
    let planes = DecayPlanes {
        rate: &rate,
        dt: DT,
        t_end: T_END,
        x: &mut x,
        t: &mut t,
    };
    let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
    let report = runner.run().unwrap();
    runner.to_host().unwrap();
    assert!(report.done(), "{report}");
    drop(runner);
    for i in 0..N {
        let (mut xr, mut tr) = (1.0f64, 0.0f64);
        loop {
            xr = xr - rate[i] * xr * DT;
            tr += DT;
            if tr >= T_END {
                break;
            }
        }
        assert_eq!(x[i].to_bits(), xr.to_bits(), "x of sample {i}");
        assert_eq!(t[i].to_bits(), tr.to_bits(), "t of sample {i}");
    }
    assert_eq!(<Decay as Kernel>::STEPS, Steps::Fixed(8));
}

#[test]
fn string_form_of_crate_works_too() {
    let rate: Vec<f32> = (0..N).map(|i| 0.5 + i as f32 / N as f32).collect();
    let (mut x, mut t) = (vec![1.0f32; N], vec![0.0f32; N]);
    let deployed = eagle::deploy(Decay32, host()).unwrap();
    let planes = Decay32Planes {
        rate: &rate,
        dt: DT as f32,
        t_end: T_END as f32,
        x: &mut x,
        t: &mut t,
    };
    let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
    assert!(runner.run().unwrap().done());
    runner.to_host().unwrap();
    drop(runner);
    for i in 0..N {
        let (mut xr, mut tr) = (1.0f32, 0.0f32);
        loop {
            xr = xr - rate[i] * xr * DT as f32;
            tr += DT as f32;
            if tr >= T_END as f32 {
                break;
            }
        }
        assert_eq!(x[i].to_bits(), xr.to_bits(), "x of sample {i}");
        assert_eq!(t[i].to_bits(), tr.to_bits(), "t of sample {i}");
    }
}
