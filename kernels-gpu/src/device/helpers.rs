//! The device team's helper kernels: compaction by chunked prefix sum, gather, scatter
//! and the WHILE-loop condition, each a plain function of (thread index, pointers) and the
//! description of its GPU entry.

use super::{EntryArgs, EntryDesc};
use crate::device_entry;

/// Samples per chunk of the compaction prefix sum (one thread counts and writes a chunk).
pub const CHUNK: u32 = 256;

/// The sample in slot `s`: `ids[s]`, or `s` itself when `ids` is null (the identity order).
///
/// # Safety
/// `ids` null or valid for reading index `s`.
#[inline(always)]
unsafe fn id_of(ids: *const u32, s: usize) -> u32 {
    if ids.is_null() {
        s as u32
    } else {
        // SAFETY: not null, so valid at `s` (the caller's contract).
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
        // SAFETY: `s < n_slots`, so `ids` (when not null) is valid at `s` and `terminated`
        // at the id it holds (the caller's contract).
        live += (unsafe { *terminated.add(id_of(ids, s) as usize) } == 0) as u32;
    }
    // SAFETY: `lo < hi` makes `c` a chunk below `ceil(n_slots / CHUNK)`: `counts` is valid.
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
        // SAFETY: `c < n_chunks`: `counts` is valid there for reads and writes.
        let v = unsafe { *counts.add(c) };
        // SAFETY: as above.
        unsafe { *counts.add(c) = sum };
        sum += v;
    }
    // SAFETY: `total` is valid for one write (the caller's contract).
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
    // SAFETY: `c` is a chunk with slots, so `offsets` (one per chunk) is valid at `c`.
    let mut at = unsafe { *offsets.add(c) } as usize;
    for s in lo..hi {
        // SAFETY: `s < n_slots`: `ids`, when not null, is valid at `s`.
        let id = unsafe { id_of(ids, s) };
        // SAFETY: `terminated` is valid at every id (the caller's contract).
        if unsafe { *terminated.add(id as usize) } == 0 {
            // SAFETY: `at` is below the chunk's offset plus its active count, so below the
            // total `ids_out` is valid for.
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
        // SAFETY: `i < n`: `ids` and `dense` are valid at `i`, `home` at the id it holds.
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
        // SAFETY: `i < n`: `ids` and `dense` are valid at `i`, `home` at the id it holds.
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
    // SAFETY: `active`, `launches` and `cond` are valid `u32`s and `history` is written
    // only below `history_len` (the caller's contract).
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

device_entry! {
    /// Compaction pass 1 (one thread per chunk): [`count_chunk`].
    pub CountChunks => hawk_count_chunks {
        n_slots: u32, ids: *const u32, terminated: *const u8, counts: *mut u32,
    }
    |a, i| { count_chunk(i, a.n_slots, a.ids, a.terminated, a.counts) }
}

device_entry! {
    /// Compaction pass 2 (launch one thread): [`scan_counts`].
    pub ScanCounts => hawk_scan_counts { n_chunks: u32, counts: *mut u32, total: *mut u32 }
    |a, i| {
        if i == 0 {
            scan_counts(a.n_chunks, a.counts, a.total)
        }
    }
}

device_entry! {
    /// Compaction pass 3 (one thread per chunk): [`write_chunk`].
    pub WriteChunks => hawk_write_chunks {
        n_slots: u32, ids: *const u32, terminated: *const u8, offsets: *const u32,
        ids_out: *mut u32,
    }
    |a, i| { write_chunk(i, a.n_slots, a.ids, a.terminated, a.offsets, a.ids_out) }
}

device_entry! {
    /// Gather of 8-byte elements: [`gather`].
    pub GatherB8 => hawk_gather_b8 { n: u32, ids: *const u32, home: *const u64, dense: *mut u64 }
    |a, i| { gather(i, a.n, a.ids, a.home, a.dense) }
}

device_entry! {
    /// Gather of 4-byte elements: [`gather`].
    pub GatherB4 => hawk_gather_b4 { n: u32, ids: *const u32, home: *const u32, dense: *mut u32 }
    |a, i| { gather(i, a.n, a.ids, a.home, a.dense) }
}

device_entry! {
    /// Gather of 1-byte elements (status bytes): [`gather`].
    pub GatherB1 => hawk_gather_b1 { n: u32, ids: *const u32, home: *const u8, dense: *mut u8 }
    |a, i| { gather(i, a.n, a.ids, a.home, a.dense) }
}

device_entry! {
    /// Scatter of 8-byte elements: [`scatter`].
    pub ScatterB8 => hawk_scatter_b8 { n: u32, ids: *const u32, dense: *const u64, home: *mut u64 }
    |a, i| { scatter(i, a.n, a.ids, a.dense, a.home) }
}

device_entry! {
    /// Scatter of 4-byte elements: [`scatter`].
    pub ScatterB4 => hawk_scatter_b4 { n: u32, ids: *const u32, dense: *const u32, home: *mut u32 }
    |a, i| { scatter(i, a.n, a.ids, a.dense, a.home) }
}

device_entry! {
    /// Scatter of 1-byte elements (status bytes): [`scatter`].
    pub ScatterB1 => hawk_scatter_b1 { n: u32, ids: *const u32, dense: *const u8, home: *mut u8 }
    |a, i| { scatter(i, a.n, a.ids, a.dense, a.home) }
}

device_entry! {
    /// The WHILE-loop condition (launch one thread): [`while_condition`].
    pub WhileCondition => hawk_while_condition {
        active: *const u32, launches: *mut u32, max_launches: u32, history: *mut u32,
        history_len: u32, cond: *mut u32,
    }
    |a, i| {
        if i == 0 {
            while_condition(a.active, a.launches, a.max_launches, a.history, a.history_len, a.cond)
        }
    }
}

/// Every helper entry (a device module must hold them all).
pub const HELPERS: [EntryDesc; 10] = [
    CountChunks::DESC,
    ScanCounts::DESC,
    WriteChunks::DESC,
    GatherB1::DESC,
    GatherB4::DESC,
    GatherB8::DESC,
    ScatterB1::DESC,
    ScatterB4::DESC,
    ScatterB8::DESC,
    WhileCondition::DESC,
];
