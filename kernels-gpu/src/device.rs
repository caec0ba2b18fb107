//! Device-side helpers: the thread index, the active counter, and the helper kernels of the
//! device team (compaction by prefix sum, gather, scatter, the WHILE-loop condition).
//!
//! Every helper is written once as a plain function of (thread index, pointers); the
//! `extern "gpu-kernel"` entries behind `cfg(target_arch = "nvptx64")` only compute the
//! thread index and call it, and the runtime's emulated device team calls the same functions
//! with the same launch geometry on the CPU.

use crate::kernel::{Kernel, run_sample};
use crate::lane::Lane;

/// Samples per chunk of the compaction prefix sum (one thread counts and writes a chunk).
pub const CHUNK: u32 = 256;

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

/// The body of the generated entry `hawk_<name>`: thread `i` of a launch over samples `0..n`
/// runs sample `i` up to `k` steps and counts it into `active` if it is still running.
///
/// # Safety
/// As [`run_sample`], for every `i < n`; `active` as in [`count_one`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn step_thread<K: Kernel>(
    i: usize,
    n: u32,
    k: u32,
    ins: &[*const K::Real],
    params: &[K::Real],
    muts: &[*mut K::Real],
    terminated: *mut u8,
    active: *mut u32,
) where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    if i < n as usize && unsafe { run_sample::<K>(i, k, ins, params, muts, terminated).0 } {
        unsafe { count_one(active) };
    }
}

/// The body of the generated entry `hawk_<name>_indexed`: thread `i` of a launch over
/// `n_active` slots runs sample `idx[i]` (an index into the full planes).
///
/// # Safety
/// As [`step_thread`]; `idx` must hold `n_active` distinct in-range indices.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn step_indexed_thread<K: Kernel>(
    i: usize,
    n_active: u32,
    k: u32,
    idx: *const u32,
    ins: &[*const K::Real],
    params: &[K::Real],
    muts: &[*mut K::Real],
    terminated: *mut u8,
    active: *mut u32,
) where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    if i < n_active as usize {
        let s = unsafe { *idx.add(i) } as usize;
        if unsafe { run_sample::<K>(s, k, ins, params, muts, terminated).0 } {
            unsafe { count_one(active) };
        }
    }
}

/// The sample in slot `s`: `ids[s]`, or `s` itself when `ids` is null (the identity order).
#[inline(always)]
unsafe fn id_of(ids: *const u32, s: usize) -> u32 {
    if ids.is_null() {
        s as u32
    } else {
        unsafe { *ids.add(s) }
    }
}

/// Compaction pass 1, thread `c`: counts the still-active samples among slots
/// `c*CHUNK .. (c+1)*CHUNK` (of `n_slots`) into `counts[c]`.
///
/// # Safety
/// `ids` null or valid for `n_slots` reads; `terminated` valid at every id; `counts` valid
/// at `c` for every chunk `c < ceil(n_slots / CHUNK)`.
#[inline(always)]
pub unsafe fn count_chunk(
    c: usize,
    n_slots: u32,
    ids: *const u32,
    terminated: *const u8,
    counts: *mut u32,
) {
    let (lo, hi) = chunk_range(c, n_slots);
    if lo >= hi {
        return;
    }
    let mut live = 0;
    for s in lo..hi {
        live += (unsafe { *terminated.add(id_of(ids, s) as usize) } == 0) as u32;
    }
    unsafe { *counts.add(c) = live };
}

/// Compaction pass 2 (one thread): `counts[0..n_chunks]` becomes its exclusive prefix sum
/// and `total` the sum.
///
/// # Safety
/// `counts` valid for `n_chunks` reads and writes, `total` for one write.
#[inline(always)]
pub unsafe fn scan_counts(n_chunks: u32, counts: *mut u32, total: *mut u32) {
    let mut sum = 0u32;
    for c in 0..n_chunks as usize {
        let v = unsafe { *counts.add(c) };
        unsafe { *counts.add(c) = sum };
        sum += v;
    }
    unsafe { *total = sum };
}

/// Compaction pass 3, thread `c`: writes the ids of chunk `c`'s active samples, in slot
/// order, to `ids_out` from `offsets[c]` on. Together the chunks keep the slots' order.
///
/// # Safety
/// As [`count_chunk`]; `offsets` from [`scan_counts`]; `ids_out` valid for the total.
#[inline(always)]
pub unsafe fn write_chunk(
    c: usize,
    n_slots: u32,
    ids: *const u32,
    terminated: *const u8,
    offsets: *const u32,
    ids_out: *mut u32,
) {
    let (lo, hi) = chunk_range(c, n_slots);
    if lo >= hi {
        return;
    }
    let mut at = unsafe { *offsets.add(c) } as usize;
    for s in lo..hi {
        let id = unsafe { id_of(ids, s) };
        if unsafe { *terminated.add(id as usize) } == 0 {
            unsafe { *ids_out.add(at) = id };
            at += 1;
        }
    }
}

fn chunk_range(c: usize, n_slots: u32) -> (usize, usize) {
    let lo = c * CHUNK as usize;
    let hi = (lo + CHUNK as usize).min(n_slots as usize);
    (lo, hi)
}

/// Gather, thread `i < n`: `dense[i] = home[ids[i]]` for elements of type `T`.
///
/// # Safety
/// `ids` valid for `n` reads, `home` at every id, `dense` for `n` writes.
#[inline(always)]
pub unsafe fn gather<T: Copy>(i: usize, n: u32, ids: *const u32, home: *const T, dense: *mut T) {
    if i < n as usize {
        unsafe { *dense.add(i) = *home.add(*ids.add(i) as usize) };
    }
}

/// Scatter, thread `i < n`: `home[ids[i]] = dense[i]` (the inverse of [`gather`]).
///
/// # Safety
/// As [`gather`], with the roles of reads and writes swapped.
#[inline(always)]
pub unsafe fn scatter<T: Copy>(i: usize, n: u32, ids: *const u32, dense: *const T, home: *mut T) {
    if i < n as usize {
        unsafe { *home.add(*ids.add(i) as usize) = *dense.add(i) };
    }
}

/// The WHILE-loop condition (one thread, after each launch of the loop body): counts the
/// launch, records the active count in `history` (while there is room) and stores in `cond`
/// whether the loop goes on (samples still active and fewer than `max_launches` launches).
///
/// # Safety
/// `active`, `launches` and `cond` valid `u32`s; `history` valid for `history_len` writes.
#[inline(always)]
pub unsafe fn while_condition(
    active: *const u32,
    launches: *mut u32,
    max_launches: u32,
    history: *mut u32,
    history_len: u32,
    cond: *mut u32,
) {
    unsafe {
        let a = *active;
        let l = *launches;
        if l < history_len {
            *history.add(l as usize) = a;
        }
        *launches = l + 1;
        *cond = (a > 0 && l + 1 < max_launches) as u32;
    }
}

/// GPU entries of the helper kernels (see the plain functions above for what they do).
#[cfg(target_arch = "nvptx64")]
mod entries {
    use super::*;

    /// Compaction pass 1 (one thread per chunk).
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_count_chunks(
        n_slots: u32,
        ids: *const u32,
        terminated: *const u8,
        counts: *mut u32,
    ) {
        unsafe { count_chunk(global_index(), n_slots, ids, terminated, counts) }
    }

    /// Compaction pass 2 (launch one thread).
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_scan_counts(
        n_chunks: u32,
        counts: *mut u32,
        total: *mut u32,
    ) {
        if global_index() == 0 {
            unsafe { scan_counts(n_chunks, counts, total) }
        }
    }

    /// Compaction pass 3 (one thread per chunk).
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_write_chunks(
        n_slots: u32,
        ids: *const u32,
        terminated: *const u8,
        offsets: *const u32,
        ids_out: *mut u32,
    ) {
        unsafe { write_chunk(global_index(), n_slots, ids, terminated, offsets, ids_out) }
    }

    /// Gather of 8-byte elements.
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_gather_b8(
        n: u32,
        ids: *const u32,
        home: *const u64,
        dense: *mut u64,
    ) {
        unsafe { gather(global_index(), n, ids, home, dense) }
    }
    /// Gather of 4-byte elements.
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_gather_b4(
        n: u32,
        ids: *const u32,
        home: *const u32,
        dense: *mut u32,
    ) {
        unsafe { gather(global_index(), n, ids, home, dense) }
    }
    /// Gather of 1-byte elements (terminated flags).
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_gather_b1(
        n: u32,
        ids: *const u32,
        home: *const u8,
        dense: *mut u8,
    ) {
        unsafe { gather(global_index(), n, ids, home, dense) }
    }
    /// Scatter of 8-byte elements.
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_scatter_b8(
        n: u32,
        ids: *const u32,
        dense: *const u64,
        home: *mut u64,
    ) {
        unsafe { scatter(global_index(), n, ids, dense, home) }
    }
    /// Scatter of 4-byte elements.
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_scatter_b4(
        n: u32,
        ids: *const u32,
        dense: *const u32,
        home: *mut u32,
    ) {
        unsafe { scatter(global_index(), n, ids, dense, home) }
    }
    /// Scatter of 1-byte elements (terminated flags).
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_scatter_b1(
        n: u32,
        ids: *const u32,
        dense: *const u8,
        home: *mut u8,
    ) {
        unsafe { scatter(global_index(), n, ids, dense, home) }
    }

    /// The WHILE-loop condition (launch one thread).
    #[unsafe(no_mangle)]
    pub unsafe extern "gpu-kernel" fn hawk_while_condition(
        active: *const u32,
        launches: *mut u32,
        max_launches: u32,
        history: *mut u32,
        history_len: u32,
        cond: *mut u32,
    ) {
        if global_index() == 0 {
            unsafe { while_condition(active, launches, max_launches, history, history_len, cond) }
        }
    }
}
