//! Save points (trajectories), written from inside a launch: the runtime's plumbing, used by
//! [`advance`](crate::advance) in the host team's lane groups and in every GPU thread.
//!
//! A run saving points hands each launch a [`SaveTarget`]: buffers of the whole ensemble,
//! indexed by the caller's sample id (so compaction and reorder never change where a point
//! lands), and the schedule:
//!
//! - **every `m` steps**: point `j` is the state after global step `(j + 1) * m`. Every
//!   launch advances all its samples from the same global step, so "is this step a save
//!   step" is one scalar branch per step for the whole lane group, and the group's vector of
//!   each saved plane is stored as it is (frozen lanes hold their frozen state: that is the
//!   state of a run stopped there).
//! - **at times**: point `j` is the first state whose time plane is `>= times[j]`. Each lane
//!   carries its next save time; kernels that take a `NextSave` argument (adaptive methods)
//!   clip their step to land on it exactly, so for them the saved time *equals* `times[j]`.
//!   A point with `times[j] <=` the initial time is the initial state.
//!
//! A sample that stops (finished or failed) keeps its last state for every later point: the
//! launch in which it stops fills its remaining points with its final state and status, once
//! (it is never stepped again). Each point has a status byte ([`ACTIVE`], [`FINISHED`],
//! [`FAILED`]): point `j` of sample `i` is, bit for bit, the planes and status byte of a run
//! stopped exactly there.
//!
//! The no-saving path is [`NoSave`]: a separate monomorphization whose hooks are empty, so it
//! compiles to exactly the loop without saving.

use crate::kernel::{ACTIVE, FAILED, FINISHED, Kernel};
use crate::lane::{Lane, LaneArray, Mask, Real};

/// Where and when a launch saves points. The buffers cover the whole ensemble; every index
/// is a caller sample id.
///
/// Launches write through its pointers, so a target is made only by the unsafe
/// [`SaveTarget::new`], whose contract makes them valid, or is [`SaveTarget::NONE`]; a safe
/// launch checks with [`SaveTarget::covers`] that its samples and steps stay inside it.
#[derive(Clone, Copy, Debug)]
pub struct SaveTarget<R> {
    /// Saved values: `data[(q * points + j) * n + id]` for saved plane `q`, point `j`,
    /// sample `id`. Null: the launch saves nothing.
    data: *mut R,
    /// Point statuses: `status[j * n + id]` ([`NOT_REACHED`], or the sample's status byte
    /// plus one).
    status: *mut u8,
    /// The save times (times mode, `points` of them, strictly increasing); null when saving
    /// every `every` steps.
    times: *const R,
    /// A point after every `every` global steps (steps mode); 0 in times mode.
    every: u32,
    /// Global steps of the run taken before this launch.
    step0: u64,
    /// Points per sample.
    points: u32,
    /// Samples in the ensemble (the stride of the buffers).
    n: u32,
    /// Bit `j` set: mutable plane `j` is saved (saved planes keep declaration order).
    planes: u64,
    /// Times mode: the time plane's index among the mutable planes.
    time: u32,
}

// SAFETY: the pointers are the whole ensemble's buffers, shared by a launch's threads; a
// launch gives every sample id to one thread (lane group) only, so no two threads write the
// same element, and `times` is only read.
unsafe impl<R: Send> Send for SaveTarget<R> {}
// SAFETY: as for `Send`: through a shared target, threads write disjoint sample ids only.
unsafe impl<R: Sync> Sync for SaveTarget<R> {}

impl<R: Real> SaveTarget<R> {
    /// A target that saves nothing.
    pub const NONE: SaveTarget<R> = SaveTarget {
        data: core::ptr::null_mut(),
        status: core::ptr::null_mut(),
        times: core::ptr::null(),
        every: 0,
        step0: 0,
        points: 0,
        n: 0,
        planes: 0,
        time: 0,
    };

    /// A target over the whole ensemble's buffers: `n` samples, `points` points each, the
    /// mutable planes whose bit is set in `planes` (bit `j`: mutable plane `j`, saved in
    /// declaration order). Steps mode: a point after every `every` global steps, `step0`
    /// of them taken before the launch. Times mode (`every == 0`): point `j` at
    /// `times[j]` (strictly increasing, else points land on the wrong times), `time` the
    /// time plane's index among the mutable planes. A null `data` gives
    /// [`SaveTarget::NONE`]: nothing else is read.
    ///
    /// # Safety
    /// Unless `data` is null, for as long as any launch uses the target (or a copy of it):
    /// - `data` is valid for reads and writes of `planes.count_ones() * points * n` values,
    ///   saved plane `q`, point `j`, sample `id` at `(q * points + j) * n + id`;
    /// - `status` is valid for reads and writes of `points * n` bytes (`j * n + id`);
    /// - in times mode (`every == 0`), `times` is valid for reading `points` values;
    /// - nothing else reads or writes these buffers while a launch runs, and they do not
    ///   overlap each other or the launch's planes.
    ///
    /// A launch writes sample `id`'s points only for the samples it runs, each from one
    /// thread, and only up to its last step: a safe launch checks that with
    /// [`SaveTarget::covers`]; an unsafe one (`run_sample`, the GPU entries) asks it of its
    /// caller.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub unsafe fn new(
        data: *mut R,
        status: *mut u8,
        times: *const R,
        every: u32,
        step0: u64,
        points: u32,
        n: u32,
        planes: u64,
        time: u32,
    ) -> Self {
        if data.is_null() {
            return Self::NONE;
        }
        SaveTarget {
            data,
            status,
            times,
            every,
            step0,
            points,
            n,
            planes,
            time,
        }
    }

    /// `true` when this launch saves points.
    #[inline(always)]
    pub fn on(&self) -> bool {
        !self.data.is_null()
    }

    /// `true` when a launch of up to `k` steps over caller samples `0..samples` stays inside
    /// this target: every sample id is below its `n` and, saving every `every` steps, the
    /// launch's last step reaches no point past its `points`. Always `true` for
    /// [`SaveTarget::NONE`].
    pub fn covers(&self, samples: usize, k: u32) -> bool {
        if !self.on() {
            return true;
        }
        let steps_fit = self.every == 0
            || self.step0.saturating_add(u64::from(k)) / u64::from(self.every)
                <= u64::from(self.points);
        samples <= self.n as usize && steps_fit
    }

    /// Times mode: the index of the first save time after `t` (all points with a time
    /// `<= t` are saved by then); `points` when none is left.
    #[inline(always)]
    fn first_after(&self, t: R) -> u32 {
        // Binary search over the (strictly increasing) times: once per lane per launch.
        let (mut lo, mut hi) = (0u32, self.points);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // SAFETY: `mid < points`, and in times mode (the only caller) `times` holds
            // `points` values.
            if unsafe { *self.times.add(mid as usize) } <= t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    #[inline(always)]
    fn time_of(&self, j: u32) -> R {
        if j < self.points {
            // SAFETY: `j < points`, and in times mode (the only caller) `times` holds
            // `points` values.
            unsafe { *self.times.add(j as usize) }
        } else {
            R::from_f64(f64::INFINITY)
        }
    }

    /// Writes one lane's saved planes and status at point `j` for sample `id`.
    ///
    /// # Safety
    /// `j < points`, `id < n`, the buffers valid as the fields document, and no other
    /// thread writes sample `id` meanwhile.
    #[inline(always)]
    unsafe fn write_one<L: Lane<Elem = R>>(&self, muts: &[L], l: usize, j: u32, id: usize, s: u8) {
        let (n, p) = (self.n as usize, self.points as usize);
        let mut q = 0;
        for (m, v) in muts.iter().enumerate() {
            if self.planes >> m & 1 == 1 {
                // SAFETY: `q` counts the saved planes so far, so `q < planes.count_ones()`;
                // with `j < points` and `id < n` (the caller's contract) the index is inside
                // `data`.
                unsafe { *self.data.add((q * p + j as usize) * n + id) = v.lane(l) };
                q += 1;
            }
        }
        // SAFETY: `j < points` and `id < n` (the caller's contract): inside `status`.
        unsafe { *self.status.add(j as usize * n + id) = s };
    }
}

/// Which caller sample each slot of a launch holds.
#[derive(Clone, Copy, Debug)]
pub enum SlotIds {
    /// Slot `s` holds sample `s` (the caller's order).
    Same,
    /// Slot `s` holds sample `ids[s]` (the host team's work set).
    Wide(*const usize),
    /// Slot `s` holds sample `ids[s]` (a device index list).
    Narrow(*const u32),
}

impl SlotIds {
    /// The sample in slot `s`.
    ///
    /// # Safety
    /// A listed map must be valid for `s`.
    #[inline(always)]
    pub unsafe fn id(self, s: usize) -> usize {
        match self {
            SlotIds::Same => s,
            // SAFETY: the caller guarantees the list is valid for index `s`.
            SlotIds::Wide(p) => unsafe { *p.add(s) },
            // SAFETY: as above.
            SlotIds::Narrow(p) => unsafe { *p.add(s) as usize },
        }
    }
}

/// A point's status byte before any launch wrote it (the run did not reach it). Written
/// points hold the sample's status byte plus one (`ACTIVE + 1`, `FINISHED + 1`,
/// `FAILED + 1`), so a zeroed buffer means "nothing reached".
pub const NOT_REACHED: u8 = 0;

/// The point status byte of lane `l` after a step: failed, else finished, else active.
#[inline(always)]
fn status_of(term: u64, failed: u64, l: usize) -> u8 {
    1 + if failed >> l & 1 == 1 {
        FAILED
    } else if term >> l & 1 == 1 {
        FINISHED
    } else {
        ACTIVE
    }
}

/// How a lane group saves points during one launch. [`NoSave`] does nothing; [`GroupSave`]
/// writes into a [`SaveTarget`].
pub trait Saver<'t, K: Kernel, L: Lane<Elem = K::Real>>: Sized {
    /// Starts a launch of the group at `slot` whose lanes in `start` had stopped before it,
    /// from state `muts`. In times mode at the run's first launch, saves the points whose
    /// time is `<=` the initial time.
    ///
    /// # Safety
    /// `target`'s buffers and `ids` must be valid for the group's samples (slots `slot ..
    /// slot + L::WIDTH`), no other thread may write those samples' points while the saver
    /// is used, and the launch must not step past the target's last point (steps mode:
    /// `(step0 + steps) / every <= points`).
    unsafe fn begin(
        target: &'t SaveTarget<K::Real>,
        ids: SlotIds,
        slot: usize,
        start: L::Mask,
        muts: &K::Muts<L>,
    ) -> Self;
    /// One step of the kernel (with each lane's next save time where the kernel takes it).
    fn step(
        &self,
        ins: &K::Ins<L>,
        params: &K::Params<L>,
        muts: &mut K::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
    );
    /// After step `s` (1-based) of the launch, frozen lanes already selected back: saves the
    /// points this step reached.
    fn after_step(&mut self, s: u32, muts: &K::Muts<L>, terminated: L::Mask, failed: L::Mask);
    /// After the launch (`taken` steps): lanes in `stopped` stopped during it; their later
    /// points get their final state and status.
    fn finish(
        &mut self,
        taken: u32,
        muts: &K::Muts<L>,
        terminated: L::Mask,
        failed: L::Mask,
        stopped: L::Mask,
    );
}

/// Saves nothing: the loop without saving, as fast as before saving existed.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSave;

impl<K: Kernel, L: Lane<Elem = K::Real>> Saver<'_, K, L> for NoSave {
    #[inline(always)]
    unsafe fn begin(
        _: &SaveTarget<K::Real>,
        _: SlotIds,
        _: usize,
        _: L::Mask,
        _: &K::Muts<L>,
    ) -> Self {
        NoSave
    }
    #[inline(always)]
    fn step(
        &self,
        ins: &K::Ins<L>,
        params: &K::Params<L>,
        muts: &mut K::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
    ) {
        K::step_or_fail(ins, params, muts, terminated, failed)
    }
    #[inline(always)]
    fn after_step(&mut self, _: u32, _: &K::Muts<L>, _: L::Mask, _: L::Mask) {}
    #[inline(always)]
    fn finish(&mut self, _: u32, _: &K::Muts<L>, _: L::Mask, _: L::Mask, _: L::Mask) {}
}

/// Saves one lane group's points into a [`SaveTarget`].
#[derive(Clone, Copy, Debug)]
pub struct GroupSave<'t, L: Lane> {
    t: &'t SaveTarget<L::Elem>,
    ids: SlotIds,
    slot: usize,
    /// Lanes stopped before the launch: their points were filled when they stopped.
    start: L::Mask,
    /// Steps mode: the launch step of the next point (`u32::MAX`: none in this launch).
    next_s: u32,
    /// Times mode: each lane's next save time (`+inf` when none is left).
    save_at: L,
}

impl<L: Lane> GroupSave<'_, L> {
    /// The caller sample of lane `l`.
    ///
    /// # Safety
    /// `l < L::WIDTH`.
    #[inline(always)]
    unsafe fn id(&self, l: usize) -> usize {
        // SAFETY: `begin`'s contract: `ids` is valid for the group's slots `slot + l`,
        // `l < WIDTH`.
        unsafe { self.ids.id(self.slot + l) }
    }

    /// Writes point `j` of every lane not in `start` (steps mode).
    ///
    /// # Safety
    /// `j < points`.
    #[inline(always)]
    unsafe fn write_group(&self, muts: &[L], j: u32, term: L::Mask, failed: L::Mask) {
        let t = self.t;
        let (n, p, w) = (t.n as usize, t.points as usize, L::WIDTH);
        let (tb, fb, sb) = (term.to_bits(), failed.to_bits(), self.start.to_bits());
        // SAFETY: `begin`'s contract: the target's buffers are valid for the group's samples,
        // which no other thread writes. With `SlotIds::Same` lane `l` is sample `slot + l`,
        // so the group's values of a plane at point `j < points` are `w` consecutive elements
        // of `data`, and its statuses `w` consecutive bytes of `status`; otherwise each lane
        // goes through `write_one` with `id(l)` (`l < w`).
        unsafe {
            if let (SlotIds::Same, 0) = (self.ids, sb) {
                // The common case: consecutive samples, every lane written: vector stores,
                // streaming ones (a saved point is not read again by the run).
                let mut q = 0;
                for (m, v) in muts.iter().enumerate() {
                    if t.planes >> m & 1 == 1 {
                        v.store_stream(t.data.add((q * p + j as usize) * n + self.slot));
                        q += 1;
                    }
                }
                let st = t.status.add(j as usize * n + self.slot);
                if tb | fb == 0 {
                    core::ptr::write_bytes(st, ACTIVE + 1, w);
                } else {
                    for l in 0..w {
                        *st.add(l) = status_of(tb, fb, l);
                    }
                }
            } else {
                for l in 0..w {
                    if sb >> l & 1 == 0 {
                        t.write_one(muts, l, j, self.id(l), status_of(tb, fb, l));
                    }
                }
            }
        }
    }

    /// Times mode: saves every point lane `l` reached (times `<=` its time), from the one
    /// at its current save time on, and moves its save time on.
    ///
    /// # Safety
    /// `l < L::WIDTH`.
    #[inline(always)]
    unsafe fn save_lane(&mut self, muts: &[L], l: usize, term: u64, failed: u64) {
        let t = self.t;
        let now = muts[t.time as usize].lane(l);
        // SAFETY: `l < WIDTH` (the caller's contract).
        let id = unsafe { self.id(l) };
        let s = status_of(term, failed, l);
        let mut j = t.index_of(self.save_at.lane(l));
        while j < t.points && t.time_of(j) <= now {
            // SAFETY: `j < points`; `id` is the lane's sample, valid for the target and
            // written by this group only (`begin`'s contract).
            unsafe { t.write_one(muts, l, j, id, s) };
            j += 1;
        }
        let only = <L::Mask as Mask>::from_fn(|x| x == l);
        self.save_at = L::select(only, L::splat(t.time_of(j)), self.save_at);
    }
}

impl<R: Real> SaveTarget<R> {
    /// Times mode: the index of save time `at` (the first time `>= at`).
    #[inline(always)]
    fn index_of(&self, at: R) -> u32 {
        let (mut lo, mut hi) = (0u32, self.points);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // SAFETY: `mid < points`, and in times mode (the only caller) `times` holds
            // `points` values.
            if unsafe { *self.times.add(mid as usize) } < at {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// A copy of the state, to index by a plane number known only at run time. Indexing the
/// caller's state itself would give its array an address for the whole launch, which keeps
/// it in memory instead of registers in the kernel's loop (6% slower on Lorenz RK4).
#[inline(always)]
fn copy_of<K: Kernel, L: Lane<Elem = K::Real>>(muts: &K::Muts<L>) -> K::Muts<L> {
    *muts
}

impl<'t, K: Kernel, L: Lane<Elem = K::Real>> Saver<'t, K, L> for GroupSave<'t, L> {
    #[inline(always)]
    unsafe fn begin(
        t: &'t SaveTarget<K::Real>,
        ids: SlotIds,
        slot: usize,
        start: L::Mask,
        muts: &K::Muts<L>,
    ) -> Self {
        let mut g = GroupSave {
            t,
            ids,
            slot,
            start,
            next_s: u32::MAX,
            save_at: L::splat(K::Real::from_f64(f64::INFINITY)),
        };
        if t.every > 0 {
            let every = u64::from(t.every);
            let first = every - t.step0 % every;
            g.next_s = u32::try_from(first).unwrap_or(u32::MAX);
        } else {
            let time = copy_of::<K, L>(muts).as_slice()[t.time as usize];
            for l in 0..L::WIDTH {
                // First launch: every point is still to come (those at or before the
                // initial time are saved just below); later: the points after `t`.
                let j = if t.step0 == 0 {
                    0
                } else {
                    t.first_after(time.lane(l))
                };
                let only = <L::Mask as Mask>::from_fn(|x| x == l);
                g.save_at = L::select(only, L::splat(t.time_of(j)), g.save_at);
            }
            if t.step0 == 0 {
                let no = <L::Mask as Mask>::splat(false);
                <Self as Saver<'t, K, L>>::after_step(&mut g, 0, muts, no, no);
            }
        }
        g
    }

    #[inline(always)]
    fn step(
        &self,
        ins: &K::Ins<L>,
        params: &K::Params<L>,
        muts: &mut K::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
    ) {
        K::step_to(ins, params, muts, terminated, failed, self.save_at)
    }

    #[inline(always)]
    fn after_step(&mut self, s: u32, muts: &K::Muts<L>, terminated: L::Mask, failed: L::Mask) {
        if self.t.every > 0 {
            if s == self.next_s {
                let j = (self.t.step0 + u64::from(s)) / u64::from(self.t.every) - 1;
                let st = copy_of::<K, L>(muts);
                // SAFETY: `j < points`: a launch never runs its samples past the target's
                // last point (`begin`'s contract).
                unsafe { self.write_group(st.as_slice(), j as u32, terminated, failed) };
                self.next_s = self.next_s.saturating_add(self.t.every);
            }
        } else {
            let st = copy_of::<K, L>(muts);
            let m = st.as_slice();
            let hit = m[self.t.time as usize].simd_ge(self.save_at) & !self.start;
            if hit.any() {
                let (h, tb, fb) = (hit.to_bits(), terminated.to_bits(), failed.to_bits());
                for l in 0..L::WIDTH {
                    if h >> l & 1 == 1 {
                        // SAFETY: `l < WIDTH`.
                        unsafe { self.save_lane(m, l, tb, fb) };
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn finish(
        &mut self,
        taken: u32,
        muts: &K::Muts<L>,
        terminated: L::Mask,
        failed: L::Mask,
        stopped: L::Mask,
    ) {
        let t = self.t;
        let st = copy_of::<K, L>(muts);
        let m = st.as_slice();
        let (sb, tb, fb) = (stopped.to_bits(), terminated.to_bits(), failed.to_bits());
        for l in 0..L::WIDTH {
            if sb >> l & 1 == 0 {
                continue;
            }
            // The first point this launch did not write for the lane.
            let from = if t.every > 0 {
                let reached = (t.step0 + u64::from(taken)) / u64::from(t.every);
                reached.min(u64::from(t.points)) as u32
            } else {
                t.first_after(m[t.time as usize].lane(l))
            };
            // SAFETY: `l < WIDTH`.
            let (id, s) = (unsafe { self.id(l) }, status_of(tb, fb, l));
            for j in from..t.points {
                // SAFETY: `j < points`; `id` is the lane's sample, valid for the target and
                // written by this group only (`begin`'s contract).
                unsafe { t.write_one(m, l, j, id, s) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_checks_the_samples_and_the_last_point() {
        let mut data = [0.0f64; 2 * 3 * 4];
        let mut status = [0u8; 3 * 4];
        let mut target = |step0| {
            // SAFETY: two saved planes, 3 points, 4 samples: the buffers' sizes; the target
            // is never launched.
            unsafe {
                SaveTarget::new(
                    data.as_mut_ptr(),
                    status.as_mut_ptr(),
                    core::ptr::null(),
                    10,
                    step0,
                    3,
                    4,
                    0b11,
                    0,
                )
            }
        };
        let t = target(0);
        assert!(t.on());
        assert!(t.covers(4, 30), "the last point is point 3's step");
        assert!(t.covers(4, 39), "no point between steps 30 and 39");
        assert!(!t.covers(4, 40), "step 40 would be a fourth point");
        assert!(!t.covers(5, 1), "a sample id past n");
        let later = target(25);
        assert!(later.covers(4, 5) && !later.covers(4, 15));
        assert!(SaveTarget::<f64>::NONE.covers(usize::MAX, u32::MAX));
        // SAFETY: a null `data` reads nothing else.
        let none = unsafe {
            SaveTarget::<f64>::new(
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                core::ptr::null(),
                1,
                0,
                9,
                9,
                1,
                0,
            )
        };
        assert!(!none.on() && none.covers(usize::MAX, u32::MAX));
    }
}
