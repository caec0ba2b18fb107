//! The bodies of a kernel's step entries (`hawk_<name>`, `hawk_<name>_indexed`).

use super::count_one;
use crate::kernel::{Kernel, run_sample};
use crate::lane::Lane;

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
    let run = |s| unsafe { run_sample::<K>(s, k, ins, params, muts, terminated).0 };
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
) where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    let sample = |i| unsafe { *idx.add(i) } as usize;
    let run = |s| unsafe { run_sample::<K>(s, k, ins, params, muts, terminated).0 };
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
        unsafe { count_one(active) };
    }
}
