use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    let out = x.simd_gt(Scalar::splat(1.0)).all() || x.simd_lt(Scalar::splat(-1.0)).all();
    *x = Scalar::select(Mask::splat(out), Scalar::splat(0.0), *x - dt * omega);
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
