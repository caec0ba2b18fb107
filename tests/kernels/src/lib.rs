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

/// Lorenz-96's right-hand side on a ring of `N` sites (as `hawk::builtin::lorenz96_rhs`).
#[inline(always)]
pub fn ring_rhs<L: Lane, const N: usize>(forcing: L, u: &[L; N]) -> [L; N] {
    core::array::from_fn(|i| {
        (u[(i + 1) % N] - u[(i + N - 2) % N]) * u[(i + N - 1) % N] - u[i] + forcing
    })
}

/// One ring problem per method, element type and size, for the table of registers and
/// spills per method (tests/it/register_table.rs): how large a state fits a GPU thread.
macro_rules! rings {
    ($($name:ident: $method:literal, $real:literal, $n:literal;)*) => {$(
        #[doc = concat!("Lorenz-96 on ", stringify!($n), " sites, ", $method, ", ", $real, ".")]
        #[problem(method = $method, real = $real)]
        pub fn $name(t: Scalar, u: &[Scalar; $n], forcing: Scalar) -> [Scalar; $n] {
            let _ = t;
            ring_rhs(forcing, u)
        }
    )*};
}

rings! {
    ring_rk4_f64_8: "rk4", "f64", 8;
    ring_rk4_f64_16: "rk4", "f64", 16;
    ring_rk4_f64_24: "rk4", "f64", 24;
    ring_rk4_f32_16: "rk4", "f32", 16;
    ring_rk4_f32_24: "rk4", "f32", 24;
    ring_rk4_f32_32: "rk4", "f32", 32;
    ring_tsit5_f64_4: "tsit5", "f64", 4;
    ring_tsit5_f64_8: "tsit5", "f64", 8;
    ring_tsit5_f64_16: "tsit5", "f64", 16;
    ring_tsit5_f32_8: "tsit5", "f32", 8;
    ring_tsit5_f32_16: "tsit5", "f32", 16;
}
