//! Device-side helpers used by the generated GPU entry points.

/// The calling thread's global index along x (`blockIdx.x * blockDim.x + threadIdx.x`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn global_index() -> usize {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + _thread_idx_x() as usize }
}

/// Adds one to a device counter (the count of still-active samples).
///
/// # Safety
/// `counter` must point to a live, 4-byte aligned `u32`.
#[inline(always)]
pub unsafe fn count_one(counter: *mut u32) {
    use core::sync::atomic::{AtomicU32, Ordering};
    unsafe { AtomicU32::from_ptr(counter).fetch_add(1, Ordering::Relaxed) };
}
