use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    let big = x.simd_gt(Scalar::splat(1.0)).any() && omega.simd_gt(Scalar::splat(0.0)).any();
    *x = Scalar::select(Mask::splat(big), *x * dt, *x);
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
