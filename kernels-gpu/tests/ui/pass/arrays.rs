use hawk::prelude::*;

const N: usize = 3;

/// Array planes (a constant and a literal length), a per-sample vector and a table.
#[kernel(time = t)]
pub fn arrays(
    c: [Scalar; 2],
    w: &[Param; N],
    dt: Param,
    terminated: &mut Terminated,
    u: &mut [Scalar; N],
    t: &mut Scalar,
    v: &mut [Scalar; 2],
) {
    for j in 0..N {
        u[j] += dt * w[j] * c[j % 2];
    }
    v[1] = v[0] + u[2];
    *t += dt;
    *terminated = t.simd_ge(Scalar::splat(1.0));
}

/// A problem with a per-sample input and a table.
#[problem(method = "dp87")]
pub fn decay(_t: Scalar, y: &[Scalar; N], k: Scalar, w: &[Param; N]) -> [Scalar; N] {
    core::array::from_fn(|j| -(k * w[j]) * y[j])
}

fn main() {
    use hawk::{Kernel, Role};
    assert_eq!(Arrays::count(Role::In), 2);
    assert_eq!(Arrays::count(Role::Param), 4);
    assert_eq!(Arrays::count(Role::Mut), 6);
    assert_eq!(Decay::count(Role::Mut), N + 4);
    let _ = decay_rhs::<f64>(0.0, &[1.0; N], 1.0, &[1.0; N]);
}
