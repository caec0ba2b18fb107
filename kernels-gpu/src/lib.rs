//! # hawk: kernels written once
//!
//! A hawk kernel is one step of one sample, written as a plain generic Rust function and
//! marked `#[kernel]`. The same source runs on an NVIDIA GPU (compiled to PTX, one thread per
//! sample, the lane type is `f64`) and on the host (compiled for the CPU, the lane type is a
//! SIMD vector of samples).
//!
//! ```
//! use hawk::prelude::*;
//!
//! #[kernel(steps = "auto")]
//! pub fn decay(rate: Scalar, dt: Param, terminated: &mut Terminated, y: &mut Scalar) {
//!     *y -= dt * rate * *y;
//!     *terminated = y.simd_lt(Scalar::splat(0.5));
//! }
//!
//! // The body is an ordinary function too: here with one f64 lane.
//! let (mut y, mut done) = (1.0_f64, false);
//! decay::<f64>(2.0, 0.1, &mut done, &mut y);
//! assert_eq!(y, 0.8);
//! assert_eq!(Decay::NAME, "decay");
//! ```
//!
//! Roles: `Scalar` is a per-sample read-only plane, `&mut Scalar` a per-sample plane the
//! kernel advances, `Param` one value for all samples, and `&mut Terminated` the per-sample
//! flag the body sets when the sample is done. An optional `&mut Failed` is a per-sample
//! flag the body sets when the sample cannot go on (e.g. its step size collapsed): the
//! runtime then keeps the state from before that step and reports the sample as failed.
//!
//! Trajectories (the runtime's `Options::save`): `#[kernel(time = t)]` names the kernel's
//! time plane (a `&mut Scalar`), so the runtime can save points at times; an optional
//! `next_save: NextSave` argument is each sample's next save time (`+inf` when none is
//! left), which an adaptive method clips its step to (`methods::adaptive_step_to`), so saved
//! points land on the requested times exactly. Inside the body `Scalar` is the lane type:
//! use its operators, [`Lane`] methods (`simd_ge`, `select`, `sqrt`, `mul_add`, ...) and
//! `Scalar::splat(c)` for constants.
#![no_std]
// `core_intrinsics`: the vector lanes' fused multiply-add and square root (`simd_fma`,
// `simd_fsqrt`, what std's `StdFloat` calls; `core::simd` has no `no_std` face for them).
#![cfg_attr(
    not(target_arch = "nvptx64"),
    feature(portable_simd, core_intrinsics),
    allow(internal_features)
)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_gpu_kernel, stdarch_nvptx, asm_experimental_arch)
)]
#![feature(core_float_math)]

extern crate self as hawk;

pub mod bits;
#[cfg(feature = "builtin")]
pub mod builtin;
// The device team's entry bodies and helper kernels: plumbing, like `advance`.
#[doc(hidden)]
pub mod device;
pub mod dual;
mod fused;
// The host team's chunk loops, compiled with each kernel: plumbing, like `advance`.
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub mod host;
pub mod kernel;
pub mod lane;
pub mod linalg;
pub mod math;
pub mod methods;
pub mod models;
pub mod random;
// Save points written from inside a launch: plumbing, like `advance`.
#[doc(hidden)]
pub mod save;

pub use bits::IntLane;
pub use fused::Fused;
pub use hawk_macros::{contract, helper, kernel, problem};
pub use kernel::{
    ACTIVE, ComponentName, FAILED, FINISHED, HostLoops, Kernel, PlaneSource, PlaneSpec, PlaneType,
    PlaneVisitor, PortableLoops, Role, Steps,
};
// The runtime's plumbing (see `kernel`): public for eagle's crates, not for kernel authors.
#[doc(hidden)]
pub use kernel::{
    advance, advance_checked, mask_to_bytes, needs_replay, part, part_mut, run_sample,
};
pub use lane::{Lane, LaneArray, Mask, Real};

/// Everything a kernel author needs: `use hawk::prelude::*;`.
pub mod prelude {
    pub use crate::contract;
    pub use crate::helper;
    pub use crate::kernel;
    pub use crate::kernel::{Kernel, Steps};
    pub use crate::lane::{Lane, Mask, Real};
    pub use crate::problem;
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` has no precondition: it aborts the kernel (the launch fails).
    unsafe { core::arch::nvptx::trap() }
}
