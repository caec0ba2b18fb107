use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    *x -= dt * omega * *x;
    *terminated = x.simd_lt(Scalar::splat(0.5));
    let _ = || panic!("step failed at {:?}", dt);
}

fn main() {}
