use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    while !x.simd_lt(Scalar::splat(1.0)).all() {
        *x -= dt * omega;
    }
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
