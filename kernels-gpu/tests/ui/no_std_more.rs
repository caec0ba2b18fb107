use hawk::prelude::*;

// The remaining no_std checks, reported together.
#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    use std::f64::consts::E;
    let _grow = alloc::vec::Vec::<f64>::with_capacity(E as usize);
    eprintln!("dt = {:?}", dt);
    print!("omega = {:?}", omega);
    *x -= dt * omega * *x;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
