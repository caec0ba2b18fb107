//! Kernels of eagle's own tests, built for the GPU by `eagle-test-support`'s build.rs with
//! eagle-build, exactly as a user's kernel crate is: so the emulated device runs them from
//! a module that really holds their entries.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

use hawk::prelude::*;

/// A test kernel with every way to stop: it finishes at `t >= 1`, the kernel flags it
/// failed at `t >= fail_at`, and a growth factor `g` of 1e200 makes `x` overflow to
/// infinity within two steps (NaN follows from `inf - inf`).
#[kernel(steps = "auto")]
pub fn wobble(
    g: Scalar,
    fail_at: Scalar,
    dt: Param,
    terminated: &mut Terminated,
    failed: &mut Failed,
    x: &mut Scalar,
    v: &mut Scalar,
    t: &mut Scalar,
) {
    let x0 = *x;
    *x = x0 * g + dt * *v;
    *v -= dt * x0 * g;
    *t += dt;
    *failed = t.simd_ge(fail_at);
    *terminated = t.simd_ge(Scalar::splat(1.0));
}
