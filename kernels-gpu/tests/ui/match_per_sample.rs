use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    let done = x.simd_lt(Scalar::splat(0.5));
    match done.any() {
        true => *x = Scalar::splat(0.0),
        false => *x -= dt * omega * *x,
    }
    *terminated = done;
}

fn main() {}
