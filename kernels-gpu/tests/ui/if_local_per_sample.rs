use hawk::prelude::*;

#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    // `e` is per-sample through `k`, itself bound from `omega`.
    let k = omega * dt;
    let e = k * *x;
    if e.simd_gt(Scalar::splat(1.0)).any() {
        *x -= e;
    }
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
