use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    let history = vec![*x; 3];
    *x = history[0] - dt * omega;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
