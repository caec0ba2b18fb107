//! The elementary functions on the emulated GPU (the GPU entry bodies, run on the CPU) and
//! on the host team (default ISA and width) give the bits of the plain scalar function: the
//! built-in `math_*` kernels (every function of `hawk::math`, `f64` and `f32`) over (0, 1).
//! `kernels-host/tests/math_lanes.rs` covers every host lane width and ISA per function.

use eagle::TeamChoice;
use eagle::hawk::builtin::elementary::*;

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
            for team in [
                TeamChoice::EmulatedDevice,
                TeamChoice::Host(Default::default()),
            ] {
                let mut y: Vec<$t> = vec![0.0; n];
                let deployed = eagle::deploy_on($kernel, team).unwrap();
                let name = deployed.team().kind();
                let planes = $planes { x: &x, y: &mut y };
                let mut runner = eagle::until_done(&deployed, 4, planes).unwrap();
                assert!(runner.run().unwrap().done(), "{name}");
                runner.to_host().unwrap();
                drop(runner);
                let got: Vec<u64> = y.iter().map(|v| v.to_bits() as u64).collect();
                assert_eq!(got, want, "{name}");
            }
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
