use hawk::prelude::*;

#[kernel]
pub fn bad(omega: f64, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
