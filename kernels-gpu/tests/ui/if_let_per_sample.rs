use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    if let Some(m) = Some(*x).filter(|_| dt.lane(0) > 0.0) {
        *x = m * omega;
    }
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
