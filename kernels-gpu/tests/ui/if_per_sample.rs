use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    if x.lt(Scalar::splat(0.0)) {
        *x = -*x;
    }
    *terminated = x.lt(Scalar::splat(0.5));
}

fn main() {}
