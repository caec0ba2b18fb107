//! The host team's working copy of an ensemble: planes as structure of arrays, the
//! terminated flags, and which caller sample each slot holds.

use crate::HostReal;
use crate::buffers::Buffers;
use crate::workbuf::WorkBuf;
use hawk::Real;
use hawk::host::ChunkPtrs;
use hawk::save::{SaveTarget, SlotIds};
use std::borrow::Cow;

/// The samples a run is still working on, densely packed.
///
/// Slot `s` holds caller sample `id(s)`. Compaction drops finished slots (writing them
/// home first) and reorder permutes slots; both keep `ids` in step with the planes.
/// Input planes are borrowed from the caller until a compaction or reorder permutes them.
#[derive(Clone, Debug)]
pub struct WorkSet<'a, R: Copy> {
    ins: Vec<Cow<'a, [R]>>,
    params: Vec<R>,
    muts: Vec<WorkBuf<R>>,
    terminated: Vec<u8>,
    /// Caller sample of each slot; empty (and not allocated) until the first permutation,
    /// while slot `s` holds sample `s`: a fresh run pays for no identity list. Distinct,
    /// each below `samples`.
    ids: Vec<usize>,
    permuted: bool,
    /// The caller's samples (the length at creation): every caller id is below it.
    samples: usize,
}

/// Raw views of a work set for one launch.
pub(crate) struct Ptrs<R> {
    pub ins: Vec<*const R>,
    pub params: Vec<R>,
    pub muts: Vec<*mut R>,
    pub terminated: *mut u8,
    /// Where the launch saves points (`SaveTarget::NONE`: nowhere).
    pub save: SaveTarget<R>,
    /// Which caller sample each slot holds (for saved points).
    pub ids: SlotIds,
}

impl<R: Copy> Ptrs<R> {
    /// The views as the chunk loops take them.
    pub fn view(&self) -> ChunkPtrs<'_, R> {
        ChunkPtrs {
            ins: &self.ins,
            params: &self.params,
            muts: &self.muts,
            terminated: self.terminated,
            save: self.save,
            ids: self.ids,
        }
    }
}

/// Copies `src` into a new vector in slot order `order`.
fn gather<T: Copy>(src: &[T], order: &[usize]) -> Vec<T> {
    order.iter().map(|&i| src[i]).collect()
}

/// Moves `v[keep[0]], v[keep[1]], ...` to the front of `v`, in place. `keep` is strictly
/// increasing, so `keep[k] >= k`: each element is read before its place is written.
fn keep_in_place<T: Copy>(v: &mut [T], keep: &[usize]) {
    for (k, &i) in keep.iter().enumerate() {
        v[k] = v[i];
    }
}

impl<'a, R: Real + HostReal> WorkSet<'a, R> {
    /// A work set over the given input planes (borrowed, or owned) and mutable planes (the
    /// run's working copies), every sample active, slot `i` = sample `i`. All planes must
    /// have the same length.
    ///
    /// # Panics
    /// When they do not (the launches read every plane up to the work set's length, so this
    /// is checked in every build, not only in debug builds).
    pub fn new(ins: Vec<Cow<'a, [R]>>, params: Vec<R>, muts: Vec<WorkBuf<R>>) -> Self {
        let n = muts.first().map_or(0, |p| p.len());
        let lens: Vec<usize> = ins
            .iter()
            .map(|p| p.len())
            .chain(muts.iter().map(|p| p.len()))
            .collect();
        assert!(
            lens.iter().all(|&l| l == n),
            "WorkSet::new: every plane must have the first mutable plane's length {n}, got \
             lengths {lens:?} (inputs first)"
        );
        Self {
            ins,
            params,
            muts,
            terminated: vec![0; n],
            ids: Vec::new(),
            permuted: false,
            samples: n,
        }
    }

    /// The same work set with each sample's status byte (`0` running, `1` finished, `2`
    /// failed) taken from `status` (caller order), e.g. to continue a stopped run.
    pub fn with_status(mut self, status: &[u8]) -> Self {
        assert_eq!(
            status.len(),
            self.terminated.len(),
            "WorkSet::with_status: one status byte per sample"
        );
        self.terminated.copy_from_slice(status);
        self
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.terminated.len()
    }

    /// `true` when no slot is left.
    pub fn is_empty(&self) -> bool {
        self.terminated.is_empty()
    }

    /// `true` while slot `i` still holds caller sample `i` for every sample (no compaction
    /// or reorder has moved anything).
    pub fn in_caller_order(&self) -> bool {
        !self.permuted
    }

    /// Caller sample index held by slot `s`.
    pub fn id(&self, s: usize) -> usize {
        if self.permuted { self.ids[s] } else { s }
    }

    /// Mutable plane `j`, in slot order.
    pub fn mutable(&self, j: usize) -> &[R] {
        &self.muts[j]
    }

    /// Input plane `j`, in slot order.
    pub fn input(&self, j: usize) -> &[R] {
        &self.ins[j]
    }

    /// Status bytes (`0` running, `1` finished, `2` failed), in slot order.
    pub fn terminated(&self) -> &[u8] {
        &self.terminated
    }

    /// Slots still active.
    pub fn active(&self) -> usize {
        self.terminated.iter().filter(|&&t| t == 0).count()
    }

    /// Takes the mutable planes out (e.g. to reuse their memory for the next run).
    pub fn into_mutables(self) -> Vec<WorkBuf<R>> {
        self.muts
    }

    /// Raw views for a launch of up to `k` steps that saves into `save`.
    ///
    /// # Panics
    /// When `save` does not cover the work set's samples or the launch's steps
    /// ([`SaveTarget::covers`]): the launch would write outside it.
    pub(crate) fn ptrs(&mut self, save: SaveTarget<R>, k: u32) -> Ptrs<R> {
        assert!(
            save.covers(self.samples, k),
            "launch: the save target does not cover the work set's {} samples or a launch of \
             {k} steps",
            self.samples
        );
        Ptrs {
            ins: self.ins.iter().map(|p| p.as_ptr()).collect(),
            params: self.params.clone(),
            muts: self.muts.iter_mut().map(|p| p.as_mut_ptr()).collect(),
            terminated: self.terminated.as_mut_ptr(),
            save,
            ids: if self.permuted {
                SlotIds::Wide(self.ids.as_ptr())
            } else {
                SlotIds::Same
            },
        }
    }

    /// Writes every slot's mutable planes and flag to its caller index in `home`.
    pub fn scatter(&self, home: &mut [WorkBuf<R>], home_terminated: &mut [u8]) {
        self.scatter_where(home, home_terminated, |_| true);
    }

    fn scatter_where(
        &self,
        home: &mut [WorkBuf<R>],
        home_terminated: &mut [u8],
        keep: impl Fn(usize) -> bool,
    ) {
        for s in (0..self.len()).filter(|&s| keep(s)) {
            let id = self.id(s);
            for (h, w) in home.iter_mut().zip(&self.muts) {
                h[id] = w[s];
            }
            home_terminated[id] = self.terminated[s];
        }
    }

    /// Compaction: writes finished slots home, then keeps only the active slots, in order,
    /// in place (no new memory, so a warm run takes no page faults). Returns how many slots
    /// left the work set.
    pub fn compact(&mut self, home: &mut [WorkBuf<R>], home_terminated: &mut [u8]) -> usize {
        self.scatter_where(home, home_terminated, |s| self.terminated[s] != 0);
        let keep: Vec<usize> = (0..self.len())
            .filter(|&s| self.terminated[s] == 0)
            .collect();
        let gone = self.len() - keep.len();
        if gone > 0 {
            self.retain(&keep);
        }
        gone
    }

    /// Keeps the slots `keep` (strictly increasing), in place where the memory is ours.
    fn retain(&mut self, keep: &[usize]) {
        debug_assert!(keep.windows(2).all(|w| w[0] < w[1]));
        let n = keep.len();
        for p in self.ins.iter_mut() {
            match p {
                Cow::Owned(v) => {
                    keep_in_place(v, keep);
                    v.truncate(n);
                }
                Cow::Borrowed(b) => *p = Cow::Owned(gather(b, keep)),
            }
        }
        for p in self.muts.iter_mut() {
            keep_in_place(p, keep);
            p.truncate(n);
        }
        keep_in_place(&mut self.terminated, keep);
        self.terminated.truncate(n);
        if self.permuted {
            keep_in_place(&mut self.ids, keep);
            self.ids.truncate(n);
        } else {
            self.ids = keep.to_vec();
        }
        self.permuted = true;
    }

    /// Reorder: puts the slots in the order `order` (slot indices; may drop slots). The
    /// mutable planes are gathered into buffers from `spare`, and their old buffers go
    /// back to it.
    ///
    /// # Panics
    /// When `order` names a slot twice or one out of range (two slots holding one sample
    /// would have two threads write its saved points).
    pub fn permute(&mut self, order: &[usize], spare: &mut Buffers) {
        let mut seen = vec![false; self.len()];
        for &s in order {
            assert!(
                s < seen.len() && !std::mem::replace(&mut seen[s], true),
                "WorkSet::permute: slot {s} is out of range or named twice"
            );
        }
        for p in self.ins.iter_mut() {
            *p = Cow::Owned(gather(p, order));
        }
        for p in self.muts.iter_mut() {
            let old = std::mem::replace(p, spare.gathered(p, order));
            spare.keep([old]);
        }
        self.terminated = gather(&self.terminated, order);
        self.ids = if self.permuted {
            gather(&self.ids, order)
        } else {
            order.to_vec()
        };
        self.permuted = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "every plane must have the first mutable plane's length 4")]
    fn a_short_plane_is_refused_in_every_build() {
        let omega = [1.0f64; 3];
        let _ = WorkSet::new(
            vec![Cow::Borrowed(&omega[..])],
            vec![],
            vec![WorkBuf::copy_of(&[0.0f64; 4])],
        );
    }

    fn four_samples() -> WorkSet<'static, f64> {
        WorkSet::new(vec![], vec![], vec![WorkBuf::copy_of(&[0.0f64; 4])])
    }

    #[test]
    #[should_panic(expected = "slot 1 is out of range or named twice")]
    fn a_permutation_naming_a_slot_twice_is_refused() {
        four_samples().permute(&[0, 1, 1], &mut Buffers::default());
    }

    #[test]
    #[should_panic(expected = "slot 4 is out of range or named twice")]
    fn a_permutation_past_the_slots_is_refused() {
        four_samples().permute(&[4], &mut Buffers::default());
    }

    #[test]
    fn a_launch_checks_its_save_target() {
        let mut data = [0.0f64; 2 * 3];
        let mut status = [0u8; 2 * 3];
        // SAFETY: one saved plane, 2 points, 3 samples: the buffers' sizes; `ptrs` refuses
        // it before anything is launched.
        let three = unsafe {
            SaveTarget::new(
                data.as_mut_ptr(),
                status.as_mut_ptr(),
                std::ptr::null(),
                1,
                0,
                2,
                3,
                1,
                0,
            )
        };
        let mut w = four_samples();
        let _ = w.ptrs(SaveTarget::NONE, u32::MAX);
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = w.ptrs(three, 1);
        }));
        assert!(refused.is_err(), "4 samples do not fit a target of 3");
        // Compaction keeps the caller's ids: still 4 samples for the target to cover.
        let mut home = vec![WorkBuf::copy_of(&[0.0f64; 4])];
        let mut home_term = vec![0u8; 4];
        w.terminated[3] = 1;
        assert_eq!(w.compact(&mut home, &mut home_term), 1);
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = w.ptrs(three, 1);
        }));
        assert!(
            refused.is_err(),
            "ids stay below the caller's sample count, not the slots"
        );
    }

    #[test]
    fn planes_of_one_length_make_a_work_set() {
        let omega = [1.0f64; 4];
        let w = WorkSet::new(
            vec![Cow::Borrowed(&omega[..])],
            vec![],
            vec![WorkBuf::copy_of(&[0.0f64; 4])],
        );
        assert_eq!(w.len(), 4);
    }
}
