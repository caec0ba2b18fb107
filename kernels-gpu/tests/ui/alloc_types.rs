use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    let mut trail: Vec<Scalar> = Vec::new();
    let name = String::new();
    let boxed = Box::new(*x);
    *x = *boxed - dt * omega;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
