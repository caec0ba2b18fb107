use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    *x -= dt * omega * *x;
    println!("x = {:?}", x);
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
