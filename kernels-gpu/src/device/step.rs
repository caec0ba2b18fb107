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
