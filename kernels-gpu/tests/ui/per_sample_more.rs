use hawk::prelude::*;

// Every remaining per-sample construct, reported together.
#[kernel]
pub fn bad(omega: Scalar, dt: Param, terminated: &mut Terminated, x: &mut Scalar) {
    // Per-sample through assignment and through a loop over a per-sample array.
    let mut acc = Scalar::splat(0.0);
    acc += *x;
    for y in [*x, omega] {
        if y.simd_gt(Scalar::splat(1.0)).any() {
            *x -= dt;
        }
    }
    while let Some(_) = Some(acc).filter(|a| a.lane(0) > 1.0) {
        acc -= dt;
    }
    match 3 {
        0 if acc.simd_gt(Scalar::splat(0.0)).any() => *x = acc,
        _ => {}
    }
    let Some(z) = Some(*x).filter(|z| z.lane(0) > 0.0) else {
        return;
    };
    *x = z;
    *terminated = x.simd_lt(Scalar::splat(0.5));
}

fn main() {}
