use hawk::prelude::*;

#[kernel(host_code = "elsewhere")]
pub fn decay(rate: Scalar, terminated: &mut Terminated, x: &mut Scalar) {
    *x = *x * rate;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
