//! The elementary functions in the GPU entry bodies (the `hawk_<name>` step entries, run
//! on the CPU thread by thread as the emulated device and the GPU run them) give the bits of
//! the plain scalar function: the built-in `math_*` kernels (every function of `hawk::math`,
//! `f64` and `f32`) over (0, 1). The host team's side is `kernels-host/tests/math_lanes.rs`
//! (every function on every host lane width and ISA against the scalar lane).
//!
//! The entries are called directly, not through a runner: a runner of a kernel also compiles
//! the host team's 26 lane shapes of it, which for these twelve kernels (every function
//! inlined) cost over half an hour of CI build. `tests/device_emulated.rs` covers the runner
//! on the emulated device.

use eagle::hawk::Kernel;
use eagle::hawk::builtin::elementary::*;
use eagle::hawk::device::{EntryArgs, SaveLaunch, StepEntry, StepLaunch};

/// Runs `K`'s plain step entry over every sample of `x` (one step each: these kernels
/// finish in one), thread by thread; returns `y` and the status bytes.
fn through_entry<K: Kernel>(x: &[K::Real]) -> (Vec<K::Real>, Vec<u8>) {
    let n = x.len();
    let mut y = x.to_vec();
    let mut terminated = vec![0u8; n];
    let mut active = 0u32;
    let launch = StepLaunch {
        slots: n as u32,
        k: 1,
        ids: 0,
        ins: &[x.as_ptr() as u64],
        params: &[],
        muts: &[y.as_mut_ptr() as u64],
        terminated: terminated.as_mut_ptr() as u64,
        active: &mut active as *mut u32 as u64,
        save: SaveLaunch::default(),
    };
    let args = K::Step::new(&launch);
    for i in 0..n {
        // SAFETY: the addresses are live vectors of n elements (x, y, terminated) and a u32.
        unsafe { args.thread(i) }
    }
    assert_eq!(active, 0, "every sample finishes in its one step");
    (y, terminated)
}

macro_rules! same_bits {
    ($test:ident, $kernel:ident, $planes:ident, $f:ident, $t:ty) => {
        #[test]
        fn $test() {
            let n = 1000;
            let x: Vec<$t> = (1..=n).map(|i| (i as f64 / (n + 1) as f64) as $t).collect();
            let want: Vec<u64> = x
                .iter()
                .map(|&v| {
                    let mut y: $t = 0.0;
                    $f::<$t>(v, &mut false, &mut y);
                    y.to_bits() as u64
                })
                .collect();
            let (y, terminated) = through_entry::<$kernel>(&x);
            assert!(terminated.iter().all(|&t| t != 0), "every sample finished");
            let got: Vec<u64> = y.iter().map(|v| v.to_bits() as u64).collect();
            assert_eq!(got, want);
        }
    };
}

same_bits!(trig_f64, MathTrig, MathTrigPlanes, math_trig, f64);
same_bits!(trig_f32, MathTrigF32, MathTrigF32Planes, math_trig_f32, f32);
same_bits!(
    inverse_f64,
    MathInverse,
    MathInversePlanes,
    math_inverse,
    f64
);
same_bits!(
    inverse_f32,
    MathInverseF32,
    MathInverseF32Planes,
    math_inverse_f32,
    f32
);
same_bits!(
    hyperbolic_f64,
    MathHyperbolic,
    MathHyperbolicPlanes,
    math_hyperbolic,
    f64
);
same_bits!(
    hyperbolic_f32,
    MathHyperbolicF32,
    MathHyperbolicF32Planes,
    math_hyperbolic_f32,
    f32
);
same_bits!(exp_log_f64, MathExpLog, MathExpLogPlanes, math_exp_log, f64);
same_bits!(
    exp_log_f32,
    MathExpLogF32,
    MathExpLogF32Planes,
    math_exp_log_f32,
    f32
);
same_bits!(pow_f64, MathPow, MathPowPlanes, math_pow, f64);
same_bits!(pow_f32, MathPowF32, MathPowF32Planes, math_pow_f32, f32);
same_bits!(
    rounding_f64,
    MathRounding,
    MathRoundingPlanes,
    math_rounding,
    f64
);
same_bits!(
    rounding_f32,
    MathRoundingF32,
    MathRoundingF32Planes,
    math_rounding_f32,
    f32
);
