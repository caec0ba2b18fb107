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
/// On a GPU the threads of a warp that count together add once: the highest of them
/// (`bfind` of `activemask`) adds how many they are (`popc`), with a device-scope `red`
/// (no result; the host reads the counter only after the launch), so the counter takes
/// one add per warp, not one per sample, and none at system scope (what
/// `AtomicU32::fetch_add` becomes on nvptx: `atom.relaxed.sys`). A thread that is not
/// converged with the others counts in its own group, with its own leader: every thread
/// is in exactly one group, so the sum is the same. Elsewhere (the emulated device, the
/// host), an atomic add.
///
/// # Safety
/// `counter` must point to a live, 4-byte aligned `u32`.
#[inline(always)]
pub unsafe fn count_one(counter: *mut u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `counter` is a live, aligned `u32` (the caller's contract), and during a
    // launch every thread touches it through this reduction only; the block declares its
    // own registers and touches no others.
    unsafe {
        core::arch::asm!(
            "{{",
            ".reg .b32 %cnt_mask, %cnt_lane, %cnt_lead, %cnt_n;",
            ".reg .pred %cnt_p;",
            "activemask.b32 %cnt_mask;",
            "mov.u32 %cnt_lane, %laneid;",
            "bfind.u32 %cnt_lead, %cnt_mask;",
            "popc.b32 %cnt_n, %cnt_mask;",
            "setp.eq.u32 %cnt_p, %cnt_lane, %cnt_lead;",
            "@%cnt_p red.relaxed.gpu.add.u32 [{c}], %cnt_n;",
            "}}",
            c = in(reg64) counter,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        use core::sync::atomic::{AtomicU32, Ordering};
        // SAFETY: `counter` is a live, aligned `u32` (the caller's contract), and during a
        // launch every thread touches it through this atomic add only.
        unsafe { AtomicU32::from_ptr(counter).fetch_add(1, Ordering::Relaxed) };
    }
}
