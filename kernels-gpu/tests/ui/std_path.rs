use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    let pi = Scalar::splat(std::f64::consts::PI);
    *x -= dt * omega * pi;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
