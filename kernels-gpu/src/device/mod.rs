//! The device side: the thread index, the active counter, the bodies of the GPU entries
//! (a kernel's step entries and the device team's helper kernels: compaction by prefix
//! sum, gather, scatter, the WHILE-loop condition) and the one description of every
//! entry's parameters ([`EntryArgs`]).
//!
//! Every entry is described once, as a struct of its parameters in order (the
//! [`device_entry!`](crate::device_entry) macro): the `extern "gpu-kernel"` function behind
//! `cfg(target_arch = "nvptx64")` takes exactly those fields as its parameters, the
//! runtime builds the struct by field name and passes its [`ParamWord`]s to the driver,
//! and the runtime's emulated device runs [`EntryArgs::thread`] on the struct itself with
//! the real launch geometry. A field whose type disagrees with the body that uses it is a
//! compile error; nothing is decoded by position.
//!
//! This module is plumbing for the runtime's device teams; kernel authors never call it.

mod entry;
mod helpers;
mod step;

pub use entry::{
    EntryArgs, EntryDesc, EntryParam, ParamWord, SaveLaunch, StepEntry, StepLaunch, address,
    concat_planes, param_bytes,
};
pub use helpers::{
    CHUNK, CountChunks, GatherB1, GatherB4, GatherB8, HELPERS, ScanCounts, ScatterB1, ScatterB4,
    ScatterB8, WhileCondition, WriteChunks, count_chunk, gather, scan_counts, scatter,
    while_condition, write_chunk,
};
pub use step::{save_target, step_indexed_thread, step_thread};

/// The calling thread's global index along x (`blockIdx.x * blockDim.x + threadIdx.x`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn global_index() -> usize {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    // SAFETY: reading the special registers `%ctaid.x`, `%ntid.x` and `%tid.x` has no
    // precondition inside a kernel.
    unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + _thread_idx_x() as usize }
}

/// Adds one to a device counter (the count of still-active samples).
///
/// # Safety
/// `counter` must point to a live, 4-byte aligned `u32`.
#[inline(always)]
pub unsafe fn count_one(counter: *mut u32) {
    use core::sync::atomic::{AtomicU32, Ordering};
    // SAFETY: `counter` is a live, aligned `u32` (the caller's contract), and during a
    // launch every thread touches it through this atomic add only.
    unsafe { AtomicU32::from_ptr(counter).fetch_add(1, Ordering::Relaxed) };
}
