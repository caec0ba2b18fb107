use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, x: &mut Scalar) {
    *x -= dt * omega * *x;
}

fn main() {}
