//! The chunk loop, written once and generic over the kernel and the lane type: lane
//! groups over a range of slots, then a scalar tail.

use super::{ChunkPtrs, LaneTypes, LaunchStats};
use crate::save::{GroupSave, NoSave, Saver};
use crate::{
    ACTIVE, FAILED, FINISHED, Kernel, Lane, LaneArray, Mask, advance, advance_checked,
    needs_replay, run_sample,
};

/// Advances the lane group at slot `i` (lanes set in `start` already stopped) `k` steps and
/// writes its state and changed status bytes back; returns how many lanes are still running
/// and how many steps the group took (each one issued for all its lanes).
///
/// # Safety
/// As [`run_chunk`], for slots `i..i + L::WIDTH`.
#[inline(always)]
unsafe fn group<'t, K: Kernel, L: Lane<Elem = K::Real>, S: Saver<'t, K, L>>(
    p: &'t ChunkPtrs<'_, K::Real>,
    params: &K::Params<L>,
    i: usize,
    start: L::Mask,
    k: u32,
) -> (usize, u32)
where
    K::Real: LaneTypes,
{
    let w = L::WIDTH;
    // SAFETY: `run_chunk`'s contract for slots `i..i + WIDTH`: every plane of `p` is valid
    // there and no other thread touches them; the save target and `p.ids` are valid for
    // those slots' samples (`S::begin`).
    unsafe {
        let flags = p.terminated.add(i);
        let ins = K::Ins::<L>::from_fn(|j| L::load(p.ins[j].add(i)));
        let load = || K::Muts::<L>::from_fn(|j| L::load(p.muts[j].add(i)));
        let mut st = load();
        let (mut term, mut failed) = (start, L::Mask::splat(false));
        let mut sv = S::begin(&p.save, p.ids, i, start, &st);
        let mut taken =
            advance::<K, L, S>(&ins, params, &mut st, &mut term, &mut failed, k, &mut sv);
        if needs_replay::<K, L>(&st, start, failed) {
            // The planes still hold the launch's start state: replay it checked (its saved
            // points overwrite the fast path's).
            // Fresh locals, so the fast path's state never has its address taken
            // (which would keep it in memory instead of registers).
            let mut st2 = load();
            let (mut term2, mut failed2) = (start, L::Mask::splat(false));
            let mut sv2 = S::begin(&p.save, p.ids, i, start, &st2);
            taken = advance_checked::<K, L, S>(
                &ins,
                params,
                &mut st2,
                &mut term2,
                &mut failed2,
                k,
                &mut sv2,
            );
            (st, term, failed, sv) = (st2, term2, failed2, sv2);
        }
        for (j, v) in st.as_slice().iter().enumerate() {
            v.store(p.muts[j].add(i));
        }
        // Masks as bits once: per-lane `test` on a vector mask is an extract each.
        let (t, s0, f) = (term.to_bits(), start.to_bits(), failed.to_bits());
        // Only lanes that were running and now stopped change their byte.
        let changed = (t | f) & !s0;
        if changed != 0 {
            // Lanes that stopped in this launch keep their final state for later points.
            let stopped = L::Mask::from_fn(|l| changed >> l & 1 == 1);
            sv.finish(taken, &st, term, failed, stopped);
            for l in 0..w {
                if changed >> l & 1 == 1 {
                    *flags.add(l) = if f >> l & 1 == 1 { FAILED } else { FINISHED };
                }
            }
        }
        (w - t.count_ones() as usize, taken)
    }
}

/// Advances slots `lo..hi`: lane groups of `L`, then a scalar tail.
///
/// # Safety
/// `lo..hi` must lie inside the work set behind `p`, and no other thread may touch it;
/// `p.save` must be valid for the samples those slots hold (`p.ids`), for every step of the
/// launch.
#[inline(always)]
pub(super) unsafe fn run_chunk<K: Kernel, L: Lane<Elem = K::Real>>(
    p: &ChunkPtrs<'_, K::Real>,
    lo: usize,
    hi: usize,
    k: u32,
) -> LaunchStats
where
    K::Real: LaneTypes,
{
    // One branch per chunk: the loop without saving is its own monomorphization.
    // SAFETY: `chunk_with` has this function's contract.
    unsafe {
        if p.save.on() {
            let stats = chunk_with::<K, L, GroupSave<'_, L>>(p, lo, hi, k);
            // Saved points were written with streaming stores: make them visible before
            // the launch ends (the rule of `Lane::store_stream`).
            #[cfg(target_arch = "x86_64")]
            core::arch::x86_64::_mm_sfence();
            stats
        } else {
            chunk_with::<K, L, NoSave>(p, lo, hi, k)
        }
    }
}

/// [`run_chunk`] with saver `S`.
///
/// # Safety
/// As [`run_chunk`].
#[inline(always)]
unsafe fn chunk_with<'t, K: Kernel, L: Lane<Elem = K::Real>, S: Saver<'t, K, L>>(
    p: &'t ChunkPtrs<'_, K::Real>,
    lo: usize,
    hi: usize,
    k: u32,
) -> LaunchStats
where
    K::Real: LaneTypes,
{
    let w = L::WIDTH;
    let params = K::Params::<L>::from_fn(|j| L::splat(p.params[j]));
    let mut stats = LaunchStats::default();
    let mut i = lo;
    // SAFETY: `lo..hi` lies inside the work set and belongs to this thread (the contract):
    // every group `i..i + w` and every tail slot `i` below is inside it.
    unsafe {
        while i + w <= hi {
            let flags = p.terminated.add(i);
            // Most groups start a launch with every lane running: then the start mask is a
            // constant and, unless a lane finishes or fails, no status byte changes.
            let all_running = (0..w).all(|l| *flags.add(l) == ACTIVE);
            let (s, taken) = if all_running {
                group::<K, L, S>(p, &params, i, L::Mask::splat(false), k)
            } else {
                let start = L::Mask::from_fn(|l| *flags.add(l) != ACTIVE);
                if start.all() {
                    i += w;
                    continue;
                }
                group::<K, L, S>(p, &params, i, start, k)
            };
            stats.active += s;
            stats.loaded += w;
            stats.lane_steps += w as u64 * u64::from(taken);
            i += w;
        }
        while i < hi {
            if *p.terminated.add(i) == ACTIVE {
                stats.loaded += 1;
            }
            let (running, taken) =
                run_sample::<K>(i, k, p.ins, p.params, p.muts, p.terminated, &p.save, p.ids);
            stats.active += running as usize;
            stats.lane_steps += u64::from(taken);
            i += 1;
        }
    }
    stats
}
