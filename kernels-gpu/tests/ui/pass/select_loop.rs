use hawk::prelude::*;

/// A valid kernel: a loop over a constant, per-sample decisions through masks.
#[kernel(steps = 8)]
pub fn clamped(omega: Scalar, dt: Param, lim: Param, terminated: &mut Terminated, x: &mut Scalar) {
    // Three sub-steps: the count is a constant, the same for every sample.
    for _ in 0..3 {
        *x -= dt * omega * *x;
    }
    // Branch-free: pick per sample.
    let over = x.simd_gt(lim);
    *x = Scalar::select(over, lim, *x);
    // A plain message panic and a branch on a constant are fine.
    if Scalar::WIDTH == 0 {
        panic!("no lanes");
    }
    *terminated = x.simd_lt(Scalar::splat(0.5)) & !over;
}

fn main() {
    let (mut x, mut done) = (20.0_f64, false);
    clamped::<f64>(1.0, 0.1, 1.5, &mut done, &mut x);
    assert_eq!(x, 1.5);
    assert!(!done);
    assert_eq!(Clamped::NAME, "clamped");
}
