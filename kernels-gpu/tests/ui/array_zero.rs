use hawk::prelude::*;

// An array plane needs at least one value; a constant of 0 is refused too.
const NONE: usize = 0;

#[kernel]
pub fn empty(dt: Param, terminated: &mut Terminated, u: &mut [Scalar; 0], t: &mut Scalar) {
    *t += dt;
    *terminated = t.simd_ge(Scalar::splat(1.0));
}

#[kernel]
pub fn empty_const(dt: Param, terminated: &mut Terminated, u: &mut [Scalar; NONE]) {
    *terminated = dt.simd_ge(Scalar::splat(1.0));
}

fn main() {}
