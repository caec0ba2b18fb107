use hawk::prelude::*;

#[kernel(crate = "not a path")]
pub fn decay(rate: Scalar, terminated: &mut Terminated, x: &mut Scalar) {
    *x = *x * rate;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
