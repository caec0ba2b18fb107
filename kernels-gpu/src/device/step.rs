//! The bodies of a kernel's step entries (`hawk_<name>`, `hawk_<name>_indexed`).

use super::count_one;
use crate::kernel::{Kernel, run_sample};
use crate::lane::{Lane, Real};
use crate::save::{SaveTarget, SlotIds};

/// The save target of a step launch from the entry's `save_*` parameters (see
/// [`SaveLaunch`](super::SaveLaunch)): the global step count is read from device memory
/// (`step0`), so a captured graph replays with the current one. Null `data`: no saving.
///
/// # Safety
/// When `data` is not null, `step0` must point to a live `u64`, and the other arguments must
/// meet [`SaveTarget::new`]'s contract for the launch (every thread of it).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn save_target<R: Real>(
    data: *mut R,
    status: *mut u8,
    times: *const R,
    step0: *const u64,
    every: u32,
    points: u32,
    n: u32,
    planes: u64,
    time: u32,
) -> SaveTarget<R> {
    if data.is_null() {
        return SaveTarget::NONE;
    }
    // SAFETY: `data` is not null here, so `step0` points to a live `u64` and the buffers
    // meet `SaveTarget::new`'s contract (this function's contract).
    unsafe { SaveTarget::new(data, status, times, every, *step0, points, n, planes, time) }
}

/// The body of the generated entry `hawk_<name>`: thread `i` of a launch over samples `0..n`
/// runs sample `i` up to `k` steps and counts it into `active` if it is still running.
/// Saved points go to caller id `save_ids[i]` (dense planes), or `i` when `save_ids` is
/// null (the caller's order).
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
    save: &SaveTarget<K::Real>,
    save_ids: *const u32,
) where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    let ids = if save_ids.is_null() {
        SlotIds::Same
    } else {
        SlotIds::Narrow(save_ids)
    };
    // SAFETY: `step_slot` calls `run` with `s = i < n` only, for which the caller guarantees
    // `run_sample`'s contract (each thread has its own `i`).
    let run = |s| unsafe { run_sample::<K>(s, k, ins, params, muts, terminated, save, ids).0 };
    // SAFETY: the identity gives every `i < n` an index `run` may use; `active` is valid
    // (the caller's contract).
    unsafe { step_slot(i, n, |i| i, run, active) }
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
    save: &SaveTarget<K::Real>,
) where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    // SAFETY: `step_slot` calls `sample` with `i < n_active` only, and `idx` holds
    // `n_active` indices (the caller's contract).
    let sample = |i| unsafe { *idx.add(i) } as usize;
    // The index list names caller ids: saved points go to sample `s` itself.
    let same = SlotIds::Same;
    // SAFETY: `s` is one of `idx`'s distinct, in-range indices, for which the caller
    // guarantees `run_sample`'s contract; distinct, so no two threads run the same sample.
    let run = |s| unsafe { run_sample::<K>(s, k, ins, params, muts, terminated, save, same).0 };
    // SAFETY: `sample` gives every `i < n_active` an index `run` may use; `active` is valid
    // (the caller's contract).
    unsafe { step_slot(i, n_active, sample, run, active) }
}

/// The body of both step entries, given how thread `i` finds its sample: thread `i < slots`
/// runs sample `sample(i)` (`run` advances it and says whether it is still running) and,
/// if it is still running, counts it into `active`.
///
/// # Safety
/// `sample` must give an index `run` may use for every `i < slots`; `active` as in
/// [`count_one`].
#[inline(always)]
unsafe fn step_slot(
    i: usize,
    slots: u32,
    sample: impl FnOnce(usize) -> usize,
    run: impl FnOnce(usize) -> bool,
    active: *mut u32,
) {
    if i < slots as usize && run(sample(i)) {
        // SAFETY: `active` is a live `u32` (the caller's contract).
        unsafe { count_one(active) };
    }
}
