//! The device team's orchestration, written once against [`Backend`]: upload, the launch
//! loop (k steps per launch, the active count read back once per launch), the three arms,
//! compaction (index list or gather/scatter), reorder, and `to_host`.
//!
//! Results stay on the device after `run()`; `to_host()` is the one device-to-host copy of
//! the results into the caller's planes.

use crate::alloc::filled;
use crate::bytes::IssuedBytes;
use crate::device::{Backend, DevPtr, GraphId, dptr};
use crate::error::Error;
use crate::options::{Arm, Compaction, DeviceCompaction, Plan};
use crate::planes::Bound;
use crate::report::{RunReport, TeamKind};
use crate::run_loop::{LoopArgs, TeamRun, run_loop};
use crate::runner::Saving;
use crate::trace;
use crate::trajectory::{SavePlan, Trajectory};
use hawk::device::{
    CHUNK, CountChunks, EntryArgs, GatherB1, GatherB4, GatherB8, SaveLaunch, ScanCounts, ScatterB1,
    ScatterB4, ScatterB8, StepEntry, StepLaunch, WhileCondition, WriteChunks,
};
use hawk::{Kernel, Real};
use hawk_host::HostReal;
use std::collections::HashMap;
use std::time::Instant;

/// Active counts kept per WHILE-loop graph replay (later launches are counted, not listed).
const HISTORY: u32 = 1 << 16;

/// Where the active samples live and how a launch reaches them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Layout {
    /// Every sample, in the caller's order, in the full ("home") planes.
    Home,
    /// The samples listed at this index list, in the home planes (indexed entry).
    Indexed(DevPtr),
    /// Dense planes holding the samples listed at this index list, in its order.
    Dense(DevPtr),
}

/// What makes a captured graph reusable: same layout, slots, k and loop length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct GraphKey {
    layout: Layout,
    slots: u32,
    k: u32,
    /// 0 for one launch; the launch cap for a WHILE graph.
    while_launches: u32,
    /// The save arguments (all zero without saving).
    save: SaveLaunch,
}

/// The device buffers of a trajectory, kept by the session between runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SaveBuffers {
    data: DevPtr,
    status: DevPtr,
    times: DevPtr,
    /// The run's global step count before the current launch (a `u64` the step entries
    /// read, uploaded before each launch, so a captured graph replays with the current one).
    step0: DevPtr,
    /// Bytes of `data` and `status` (what they were allocated for).
    data_bytes: usize,
    status_bytes: usize,
    times_bytes: usize,
}

/// A step launch's arguments: the plain entry's (`hawk_<name>`) or the indexed one's.
#[derive(Clone, Copy)]
enum StepArgs<K: Kernel> {
    Plain(K::Step),
    Indexed(K::StepIndexed),
}

impl<K: Kernel> StepArgs<K> {
    /// Queues the launch over `slots` threads.
    ///
    /// # Safety
    /// As [`Backend::launch`]: the arguments (from [`Session::step_launch_args`] of this
    /// backend's session, for `slots` slots of one of its layouts) meet the entry's contract.
    unsafe fn launch<B: Backend>(self, be: &mut B, slots: u32) -> Result<(), Error> {
        match self {
            // SAFETY: this function's contract.
            StepArgs::Plain(a) => unsafe { be.launch(a, slots) },
            // SAFETY: this function's contract.
            StepArgs::Indexed(a) => unsafe { be.launch(a, slots) },
        }
    }
}

/// An element type the gather/scatter helpers move: the arguments of its two entries.
trait Moved {
    /// Gather of `n` slots: `dense[i] = home[ids[i]]`.
    fn gather(n: u32, ids: *const u32, home: DevPtr, dense: DevPtr) -> impl EntryArgs + 'static;
    /// Scatter of `n` slots: `home[ids[i]] = dense[i]`.
    fn scatter(n: u32, ids: *const u32, home: DevPtr, dense: DevPtr) -> impl EntryArgs + 'static;
}

/// Implements [`Moved`] for each element type with its gather and scatter entries.
macro_rules! moved {
    ($($t:ty => $gather:ident, $scatter:ident;)*) => {$(
        impl Moved for $t {
            fn gather(n: u32, ids: *const u32, home: DevPtr, dense: DevPtr)
            -> impl EntryArgs + 'static {
                $gather { n, ids, home: dptr(home), dense: dptr(dense) }
            }
            fn scatter(n: u32, ids: *const u32, home: DevPtr, dense: DevPtr)
            -> impl EntryArgs + 'static {
                $scatter { n, ids, dense: dptr(dense), home: dptr(home) }
            }
        }
    )*};
}

moved! {
    u64 => GatherB8, ScatterB8;
    u32 => GatherB4, ScatterB4;
    u8 => GatherB1, ScatterB1;
}

/// Queues the gather (home -> dense, `gather`) or the scatter (dense -> home) of one plane
/// of `T`s over `n` slots along `ids`.
///
/// # Safety
/// `ids` must be an allocation of `be` holding `n` distinct indices, `home` one of `T`s
/// valid at each of them, `dense` one of at least `n` `T`s.
unsafe fn move_plane<T: Moved, B: Backend>(
    be: &mut B,
    gather: bool,
    n: u32,
    ids: *const u32,
    home: DevPtr,
    dense: DevPtr,
) -> Result<(), Error> {
    // Both entries read `ids` and `dense` below `n` and `home` at the ids, all valid there
    // (this function's contract); the ids are distinct, so no two threads write one element.
    if gather {
        // SAFETY: as above.
        unsafe { be.launch(T::gather(n, ids, home, dense), n) }
    } else {
        // SAFETY: as above.
        unsafe { be.launch(T::scatter(n, ids, home, dense), n) }
    }
}

/// Device buffers and graphs of one runner; lives as long as the runner.
///
/// Its invariants, which every backend call here relies on (the backend's methods are
/// `unsafe`: device memory is untyped addresses): every address it holds is an allocation
/// of `be`, alive until the session drops, of the size `new`, `dense_buffers` or
/// `save_buffers` gave it: planes of `n` elements of the kernel's `Real` (`elem` bytes
/// each), `n` status bytes, index lists of `n` `u32`s, one count per chunk of `n`, 4-byte
/// counters, `HISTORY` `u32`s. An index list a layout names holds its `slots` distinct ids
/// below `n` (`compact` and `reorder` write them); `slots <= n`.
pub(crate) struct Session<B: Backend> {
    be: B,
    n: u32,
    /// Bytes per plane element (the `Real` the session was made for).
    elem: usize,
    ins: Vec<DevPtr>,
    muts: Vec<DevPtr>,
    term: DevPtr,
    dense: Option<(Vec<DevPtr>, Vec<DevPtr>, DevPtr)>,
    ids: [DevPtr; 2],
    counts: DevPtr,
    total: DevPtr,
    active: DevPtr,
    launches: DevPtr,
    history: DevPtr,
    cond: DevPtr,
    graphs: HashMap<GraphKey, GraphId>,
    /// The device holds the current state (the caller's planes may be stale).
    on_device: bool,
    /// Trajectory buffers (allocated by the first run that saves, reused after).
    save: Option<SaveBuffers>,
    /// The device holds saved points the host trajectory lacks (until `to_host`).
    saved_on_device: bool,
}

fn bytes_of<R: Real>(s: &[R]) -> &[u8] {
    // SAFETY: `Real` is sealed to `f32` and `f64`: no padding bytes; the view covers
    // exactly the slice's bytes and borrows it.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(s)) }
}

fn bytes_of_mut<R: Real>(s: &mut [R]) -> &mut [u8] {
    // SAFETY: `Real` is sealed to `f32` and `f64`: no padding, and every bit pattern is a
    // valid value; the view covers exactly the slice's bytes and borrows it mutably.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), std::mem::size_of_val(s)) }
}

impl<B: Backend> Session<B> {
    /// Refuses an element type other than the one the session was made for (its buffers
    /// are sized by it).
    fn check_elem<R: Real>(&self) {
        assert_eq!(
            R::BYTES,
            self.elem,
            "a device session used with another element type"
        );
    }

    /// Allocates the device buffers and uploads the read-only planes.
    pub fn new<R: HostReal>(mut be: B, planes: &Bound<'_, R>) -> Result<Self, Error> {
        let n = u32::try_from(planes.n).map_err(|_| {
            Error::device(format!(
                "{} samples is more than the device team's limit of {}",
                planes.n,
                u32::MAX
            ))
        })?;
        let bytes = planes.n * R::BYTES;
        let _r = trace::range("upload");
        let mut ins = Vec::new();
        for d in &planes.ins {
            assert_eq!(d.len(), planes.n, "an input plane of another length");
            let p = be.alloc(bytes)?;
            // SAFETY: `p` was just allocated with `bytes`, the plane's length in bytes.
            unsafe { be.upload(p, bytes_of(d)) }?;
            ins.push(p);
        }
        let muts = (0..planes.muts.len())
            .map(|_| be.alloc(bytes))
            .collect::<Result<Vec<_>, _>>()?;
        let term = be.alloc(planes.n)?;
        let ids = [be.alloc(planes.n * 4)?, be.alloc(planes.n * 4)?];
        let n_chunks = planes.n.div_ceil(CHUNK as usize);
        Ok(Session {
            counts: be.alloc(n_chunks * 4)?,
            total: be.alloc(4)?,
            active: be.alloc(4)?,
            launches: be.alloc(4)?,
            history: be.alloc(HISTORY as usize * 4)?,
            cond: be.alloc(4)?,
            be,
            n,
            elem: R::BYTES,
            ins,
            muts,
            term,
            dense: None,
            ids,
            graphs: HashMap::new(),
            on_device: false,
            save: None,
            saved_on_device: false,
        })
    }

    /// Device buffers for `plan`'s points (reused when big enough; else allocated, after
    /// checking the driver's free memory), their statuses zeroed (not reached) and the save
    /// times uploaded: the arguments every step launch of the run gets, with `ids`.
    fn save_buffers<R: HostReal>(
        &mut self,
        plan: &SavePlan,
        traj: &Trajectory<R>,
    ) -> Result<SaveLaunch, Error> {
        self.check_elem::<R>();
        assert!(
            plan.n == self.n as usize
                && traj.data.len() == plan.names.len() * plan.points * plan.n
                && traj.status.len() == plan.points * plan.n
                && traj.times_r.len() == plan.times.len()
                && plan.mask.count_ones() as usize == plan.names.len(),
            "a trajectory or save plan not sized for this session"
        );
        let data_bytes = plan.names.len() * plan.points * plan.n * R::BYTES;
        let status_bytes = plan.points * plan.n;
        let times_bytes = plan.times.len() * R::BYTES;
        let fits = self.save.is_some_and(|b| {
            b.data_bytes >= data_bytes
                && b.status_bytes >= status_bytes
                && b.times_bytes >= times_bytes
        });
        if !fits {
            // Buffers of an earlier plan stay allocated until the session ends (the
            // backends free on drop); a runner's plan never changes, so this runs once.
            let need = (data_bytes + status_bytes + times_bytes) as u64;
            if let Some(free) = self.be.mem_free()
                && need > free as u64
            {
                return Err(plan.too_large_on_device(R::BYTES, free as u64));
            }
            self.save = Some(SaveBuffers {
                data: self.be.alloc(data_bytes)?,
                status: self.be.alloc(status_bytes)?,
                times: self.be.alloc(times_bytes)?,
                step0: self.be.alloc(8)?,
                data_bytes,
                status_bytes,
                times_bytes,
            });
        }
        let b = self.save.expect("allocated above");
        // SAFETY: `b.status` was allocated with at least `status_bytes` (checked above).
        unsafe { self.be.zero(b.status, status_bytes) }?;
        if times_bytes > 0 {
            // SAFETY: `b.times` holds at least `times_bytes`, the size of `traj.times_r`
            // (checked above).
            unsafe { self.be.upload(b.times, bytes_of(&traj.times_r)) }?;
        }
        Ok(SaveLaunch {
            data: b.data,
            status: b.status,
            times: if plan.every == 0 { b.times } else { 0 },
            ids: 0,
            step0: b.step0,
            every: plan.every,
            points: plan.points as u32,
            n: plan.n as u32,
            planes: plan.mask,
            time: plan.time,
        })
    }

    /// Brings the saved points home into `traj` (when the device holds newer ones).
    fn copy_trajectory<R: HostReal>(&mut self, traj: &mut Trajectory<R>) -> Result<(), Error> {
        let Some(b) = self.save.filter(|_| self.saved_on_device) else {
            return Ok(());
        };
        let _r = trace::range("trajectory to_host");
        let data = bytes_of_mut(&mut traj.data[..]);
        assert!(
            data.len() <= b.data_bytes && traj.status.len() <= b.status_bytes,
            "a trajectory larger than the device's buffers"
        );
        // SAFETY: `b.data` holds `b.data_bytes >= data.len()` bytes (checked above).
        unsafe { self.be.download(b.data, data) }?;
        // SAFETY: `b.status` holds `b.status_bytes >= traj.status.len()` bytes.
        unsafe { self.be.download(b.status, &mut traj.status) }?;
        self.saved_on_device = false;
        Ok(())
    }

    /// The one device-to-host copy of the results into the caller's planes. Every plane is
    /// downloaded before any is written, so a device fault leaves the caller's planes as
    /// they were.
    pub fn copy_home<R: HostReal>(
        &mut self,
        planes: &mut Bound<'_, R>,
        traj: Option<&mut Trajectory<R>>,
    ) -> Result<(), Error> {
        if let Some(t) = traj {
            self.copy_trajectory(t)?;
        }
        if !self.on_device {
            return Ok(());
        }
        let _r = trace::range("to_host");
        self.check_elem::<R>();
        let mut got: Vec<Vec<R>> = Vec::with_capacity(self.muts.len());
        for &src in &self.muts {
            let mut v = filled(R::from_f64(0.0), self.n as usize, "the planes coming home")?;
            // SAFETY: `src` is a plane of `n` elements of `R` (the session's invariant;
            // `R` checked above), what `v` holds.
            unsafe { self.be.download(src, bytes_of_mut(&mut v)) }?;
            got.push(v);
        }
        for (dst, src) in planes.muts.iter_mut().zip(got) {
            dst.copy_from_slice(&src);
        }
        Ok(())
    }

    /// Brings the state home and makes the caller's planes the source of the next run.
    pub fn release_to_host<R: HostReal>(
        &mut self,
        planes: &mut Bound<'_, R>,
        traj: Option<&mut Trajectory<R>>,
    ) -> Result<(), Error> {
        self.copy_home(planes, traj)?;
        self.on_device = false;
        Ok(())
    }

    /// The `u32` at `p`, once the work queued before has run.
    ///
    /// # Safety
    /// `p` must be an allocation of this session's backend of at least 4 bytes.
    unsafe fn read_u32(&mut self, p: DevPtr) -> Result<u32, Error> {
        let mut b = [0u8; 4];
        // SAFETY: `p` holds 4 bytes (this function's contract).
        unsafe { self.be.download(p, &mut b) }?;
        Ok(u32::from_ne_bytes(b))
    }

    fn dense_buffers<R: HostReal>(&mut self) -> Result<(Vec<DevPtr>, Vec<DevPtr>, DevPtr), Error> {
        self.check_elem::<R>();
        if self.dense.is_none() {
            let bytes = self.n as usize * R::BYTES;
            let ins = (0..self.ins.len())
                .map(|_| self.be.alloc(bytes))
                .collect::<Result<Vec<_>, _>>()?;
            let muts = (0..self.muts.len())
                .map(|_| self.be.alloc(bytes))
                .collect::<Result<Vec<_>, _>>()?;
            let term = self.be.alloc(self.n as usize)?;
            self.dense = Some((ins, muts, term));
        }
        Ok(self.dense.clone().expect("allocated above"))
    }

    /// The arguments of a step launch over `slots` slots of `layout`, built from the
    /// entry's description by plane role and index.
    fn step_launch_args<K: Kernel>(
        &self,
        layout: Layout,
        slots: u32,
        k: u32,
        params: &[K::Real],
        save: SaveLaunch,
    ) -> StepArgs<K>
    where
        K::Real: HostReal,
    {
        let (ins, muts, term) = match layout {
            Layout::Home | Layout::Indexed(_) => (&self.ins, &self.muts, self.term),
            Layout::Dense(_) => {
                let d = self
                    .dense
                    .as_ref()
                    .expect("dense planes exist in a dense layout");
                (&d.0, &d.1, d.2)
            }
        };
        let launch = StepLaunch {
            slots,
            k,
            ids: match layout {
                Layout::Indexed(ids) => ids,
                _ => 0,
            },
            ins,
            params,
            muts,
            terminated: term,
            active: self.active,
            // Dense planes: slot `i` holds caller sample `ids[i]`; elsewhere the thread's
            // sample index is the caller's.
            save: SaveLaunch {
                ids: match layout {
                    Layout::Dense(ids) if save.data != 0 => ids,
                    _ => 0,
                },
                ..save
            },
        };
        match layout {
            Layout::Indexed(_) => StepArgs::Indexed(K::StepIndexed::new(&launch)),
            _ => StepArgs::Plain(K::Step::new(&launch)),
        }
    }

    /// Queues one launch: zero the active counter, step every slot up to `k` steps.
    fn queue_launch<K: Kernel>(
        &mut self,
        layout: Layout,
        slots: u32,
        k: u32,
        params: &[K::Real],
        save: SaveLaunch,
    ) -> Result<(), Error>
    where
        K::Real: HostReal,
    {
        // SAFETY: `active` is a 4-byte counter (the session's invariant).
        unsafe { self.be.zero(self.active, 4) }?;
        let step = self.step_launch_args::<K>(layout, slots, k, params, save);
        // SAFETY: the step entry's arguments for `slots` slots of one of this session's
        // layouts: planes of `n`, an index list of `slots` distinct ids below `n` (indexed
        // and dense layouts), the active counter, and `save` from `save_buffers` (sized for
        // the run's plan, whose launches never pass its last point) or none.
        unsafe { step.launch(&mut self.be, slots) }
    }

    /// Gathers (home -> dense, in the order of `ids`) or scatters (dense -> home) every
    /// plane (the inputs too when `with_ins`) and the status bytes, each with the helper of
    /// its element width.
    ///
    /// # Safety
    /// `ids` must be one of this session's index lists, holding `slots` distinct ids below
    /// `n`.
    unsafe fn move_planes<R: HostReal>(
        &mut self,
        gather: bool,
        with_ins: bool,
        slots: u32,
        ids: DevPtr,
    ) -> Result<(), Error> {
        let (d_ins, d_muts, d_term) = self.dense_buffers::<R>()?;
        let w = R::BYTES as u8;
        let mut pairs: Vec<(DevPtr, DevPtr, u8)> = Vec::new();
        if with_ins {
            pairs.extend(self.ins.iter().zip(&d_ins).map(|(&h, &d)| (h, d, w)));
        }
        pairs.extend(self.muts.iter().zip(&d_muts).map(|(&h, &d)| (h, d, w)));
        pairs.push((self.term, d_term, 1));
        let ids = dptr(ids);
        for (home, dense, w) in pairs {
            let be = &mut self.be;
            // For each arm: `ids` holds `slots` distinct ids below `n` (this function's
            // contract); `home` and `dense` are planes of `n` elements of width `w` (the
            // session's invariant, `R` checked by `dense_buffers`).
            match w {
                // SAFETY: as above.
                8 => unsafe { move_plane::<u64, B>(be, gather, slots, ids, home, dense) },
                // SAFETY: as above.
                4 => unsafe { move_plane::<u32, B>(be, gather, slots, ids, home, dense) },
                // SAFETY: as above.
                _ => unsafe { move_plane::<u8, B>(be, gather, slots, ids, home, dense) },
            }?;
        }
        Ok(())
    }

    /// Device compaction: the active samples among `slots` slots of `layout` become a new
    /// index list (prefix sum over chunks, order kept) and, for `Gather`, dense planes.
    fn compact<K: Kernel>(
        &mut self,
        layout: Layout,
        slots: u32,
        strategy: DeviceCompaction,
    ) -> Result<Layout, Error>
    where
        K::Real: HostReal,
    {
        let _r = trace::range("compaction");
        let ids = match layout {
            Layout::Home => 0,
            Layout::Indexed(p) => p,
            Layout::Dense(p) => {
                // SAFETY: a dense layout's index list holds its `slots` distinct ids below
                // `n` (the session's invariant).
                unsafe { self.move_planes::<K::Real>(false, false, slots, p) }?;
                p
            }
        };
        let out = if ids == self.ids[0] {
            self.ids[1]
        } else {
            self.ids[0]
        };
        let n_chunks = slots.div_ceil(CHUNK);
        let (term, counts) = (self.term, self.counts);
        let (ids, term) = (dptr(ids), dptr(term));
        // The three passes below (the session's invariant): `ids` is null (home layout,
        // slots = n) or an index list of `slots` ids below `n`, `term` has `n` status bytes,
        // `counts` one `u32` per chunk of `n >= slots`, `total` is a counter, and `out`,
        // the other index list, has room for `n >= kept` ids.
        // SAFETY: as above.
        unsafe {
            self.be.launch(
                CountChunks {
                    n_slots: slots,
                    ids,
                    terminated: term,
                    counts: dptr(counts),
                },
                n_chunks,
            )
        }?;
        // SAFETY: as above.
        unsafe {
            self.be.launch(
                ScanCounts {
                    n_chunks,
                    counts: dptr(counts),
                    total: dptr(self.total),
                },
                1,
            )
        }?;
        // SAFETY: as above; the offsets are the prefix sum pass 2 wrote.
        unsafe {
            self.be.launch(
                WriteChunks {
                    n_slots: slots,
                    ids,
                    terminated: term,
                    offsets: dptr(counts),
                    ids_out: dptr(out),
                },
                n_chunks,
            )
        }?;
        // SAFETY: `total` is a 4-byte counter.
        let kept = unsafe { self.read_u32(self.total) }?;
        match strategy {
            DeviceCompaction::IndexList => Ok(Layout::Indexed(out)),
            DeviceCompaction::Gather => {
                // SAFETY: `out` now holds the `kept` active ids, distinct (each slot's id
                // once, from distinct ids) and below `n`.
                unsafe { self.move_planes::<K::Real>(true, true, kept, out) }?;
                Ok(Layout::Dense(out))
            }
        }
    }

    /// One launch of `k` steps by the arm (direct or graph replay); returns the active count.
    #[allow(clippy::too_many_arguments)]
    fn launch_once<K: Kernel>(
        &mut self,
        arm: Arm,
        layout: Layout,
        slots: u32,
        k: u32,
        params: &[K::Real],
        save: SaveLaunch,
        report: &mut RunReport,
    ) -> Result<u32, Error>
    where
        K::Real: HostReal,
    {
        // One range per launch, the active count's read-back (which waits for it) included.
        let _r = trace::range(if arm == Arm::Simulate {
            "launch"
        } else {
            "graph replay"
        });
        if arm == Arm::Simulate {
            self.queue_launch::<K>(layout, slots, k, params, save)?;
        } else {
            // A graph is reused for the same key only: the same layout (index list), slots,
            // k and save arguments, whose buffers hold what the launch needs at each replay
            // as they did when it was recorded (the session's invariant).
            let key = GraphKey {
                layout,
                slots,
                k,
                while_launches: 0,
                save,
            };
            let g = match self.graphs.get(&key) {
                Some(&g) => g,
                None => {
                    let _r = trace::range("graph capture");
                    let t = Instant::now();
                    self.be.begin_capture()?;
                    let queued = self.queue_launch::<K>(layout, slots, k, params, save);
                    let g = self.be.end_capture();
                    queued?;
                    let g = g?;
                    report.build_s += t.elapsed().as_secs_f64();
                    report.graphs_built += 1;
                    self.graphs.insert(key, g);
                    g
                }
            };
            // SAFETY: the graph recorded `queue_launch`'s work for this key (see above).
            unsafe { self.be.replay(g) }?;
            report.graph_replays += 1;
        }
        // SAFETY: `active` is a 4-byte counter.
        unsafe { self.read_u32(self.active) }
    }

    /// The whole loop as one WHILE graph of full-k launches (at most `max_launches`).
    /// Returns `Ok(None)` (with a note) when the device cannot build it.
    #[allow(clippy::too_many_arguments)]
    fn while_loop<K: Kernel>(
        &mut self,
        layout: Layout,
        slots: u32,
        k: u32,
        max_launches: u32,
        params: &[K::Real],
        report: &mut RunReport,
    ) -> Result<Option<u32>, Error>
    where
        K::Real: HostReal,
    {
        let key = GraphKey {
            layout,
            slots,
            k,
            while_launches: max_launches,
            save: SaveLaunch::default(),
        };
        let g = match self.graphs.get(&key) {
            Some(&g) => g,
            None => {
                let _r = trace::range("graph capture (while)");
                let t = Instant::now();
                let (active, launches, history, cond) =
                    (self.active, self.launches, self.history, self.cond);
                let step =
                    self.step_launch_args::<K>(layout, slots, k, params, SaveLaunch::default());
                let cond_args = WhileCondition {
                    active: dptr(active),
                    launches: dptr(launches),
                    max_launches,
                    history: dptr(history),
                    history_len: HISTORY,
                    cond: dptr(cond),
                };
                let mut body = |be: &mut B| {
                    // SAFETY: `active` is a 4-byte counter.
                    unsafe { be.zero(active, 4) }?;
                    // SAFETY: as in `queue_launch` (without saving).
                    unsafe { step.launch(be, slots) }?;
                    // SAFETY: the condition kernel reads and writes the session's 4-byte
                    // counters and its history of `HISTORY = history_len` `u32`s (written
                    // below `history_len` only).
                    unsafe { be.launch(cond_args, 1) }
                };
                // SAFETY: `cond` is a 4-byte counter.
                let built = match unsafe { self.be.while_graph(cond, &mut body) } {
                    Ok(built) => built,
                    // A trap or a lost context ends the run; any other failure to build
                    // the loop (creating its handle, adding the node, capturing the body,
                    // instantiating) leaves the plain graph arm, which needs none of it.
                    Err(e) if e.breaks_context() => return Err(e),
                    Err(e) => Err(e.to_string()),
                };
                match built {
                    Ok(g) => {
                        report.build_s += t.elapsed().as_secs_f64();
                        report.graphs_built += 1;
                        self.graphs.insert(key, g);
                        g
                    }
                    Err(reason) => {
                        report
                            .notes
                            .push(format!("graph_while fell back to graph: {reason}"));
                        return Ok(None);
                    }
                }
            }
        };
        let _r = trace::range("graph replay (while)");
        // SAFETY: `launches` and `cond` are 4-byte counters.
        unsafe { self.be.upload(self.launches, &0u32.to_ne_bytes()) }?;
        // SAFETY: as above.
        unsafe { self.be.upload(self.cond, &1u32.to_ne_bytes()) }?;
        // SAFETY: the WHILE graph recorded for this key (layout, slots, k), built above or
        // earlier over the same buffers; its counters were just reset.
        unsafe { self.be.replay(g) }?;
        report.graph_replays += 1;
        // SAFETY: `launches` is a 4-byte counter.
        let l = unsafe { self.read_u32(self.launches) }?;
        let listed = l.min(HISTORY) as usize;
        let mut hist = vec![0u8; listed * 4];
        // SAFETY: `history` holds `HISTORY >= listed` `u32`s.
        unsafe { self.be.download(self.history, &mut hist) }?;
        report.active_by_launch.extend(
            hist.as_chunks::<4>()
                .0
                .iter()
                .map(|c| u32::from_ne_bytes(*c) as usize),
        );
        if l > HISTORY {
            report.notes.push(format!(
                "active_by_launch lists the first {HISTORY} of {l} launches of the WHILE loop"
            ));
        }
        report
            .slots_by_launch
            .extend(std::iter::repeat_n(slots as usize, l as usize));
        report.launches += u64::from(l);
        report.steps += u64::from(l) * u64::from(k);
        *report.launches_by_k.entry(k).or_default() += u64::from(l);
        // SAFETY: `active` is a 4-byte counter.
        Ok(Some(unsafe { self.read_u32(self.active) }?))
    }
}

/// One run on a device: the session, the run's layout, slots and arm (after any
/// fallback), and the kernel's params.
pub(crate) struct DeviceRun<'s, B: Backend, K: Kernel> {
    s: &'s mut Session<B>,
    params: Vec<K::Real>,
    layout: Layout,
    slots: u32,
    arm: Arm,
    strategy: DeviceCompaction,
    issued: IssuedBytes,
    /// Samples active before the next launch.
    running: u32,
    /// The save arguments of every launch (all zero without saving) and the plan.
    save: SaveLaunch,
    save_plan: Option<&'s SavePlan>,
}

impl<B: Backend> Session<B> {
    /// Starts a run from the device state left by the last run, or from the caller's
    /// planes when they are the current state, with the status bytes in `status` (all
    /// `ACTIVE` for a fresh run); also the report's team fields.
    pub fn begin<'s, K: Kernel>(
        &'s mut self,
        plan: &Plan,
        planes: &Bound<'_, K::Real>,
        status: &[u8],
        saving: Option<Saving<'s, K::Real>>,
    ) -> Result<(DeviceRun<'s, B, K>, RunReport), Error>
    where
        K::Real: HostReal,
    {
        self.check_elem::<K::Real>();
        assert!(
            status.len() == self.n as usize
                && planes.muts.len() == self.muts.len()
                && planes.muts.iter().all(|p| p.len() == self.n as usize),
            "planes or status bytes not sized for this device session"
        );
        // Sized against the device's free memory before anything is uploaded.
        let (save, save_plan) = match saving {
            Some(s) => {
                let launch = self.save_buffers::<K::Real>(s.plan, s.traj)?;
                self.saved_on_device = true;
                (launch, Some(s.plan))
            }
            None => (SaveLaunch::default(), None),
        };
        if !self.on_device {
            let _r = trace::range("upload");
            for (j, src) in planes.muts.iter().enumerate() {
                let dst = self.muts[j];
                // SAFETY: `dst` is a plane of `n` elements, `src`'s length (checked above).
                unsafe { self.be.upload(dst, bytes_of(src)) }?;
            }
        }
        self.on_device = true;
        // SAFETY: `term` holds `n` bytes, `status`'s length (checked above).
        unsafe { self.be.upload(self.term, status) }?;
        let report = RunReport {
            samples: planes.n,
            team: TeamKind::Device,
            arm: Some(plan.arm),
            compaction_strategy: Some(plan.device_compaction),
            ..RunReport::default()
        };
        let run = DeviceRun {
            slots: self.n,
            s: self,
            params: planes.params.clone(),
            layout: Layout::Home,
            arm: plan.arm,
            strategy: plan.device_compaction,
            issued: IssuedBytes::of::<K>(),
            running: status.iter().filter(|&&b| b == hawk::ACTIVE).count() as u32,
            save,
            save_plan,
        };
        Ok((run, report))
    }
}

impl<B: Backend, K: Kernel> TeamRun<K> for DeviceRun<'_, B, K>
where
    K::Real: HostReal,
{
    /// Uploads the order as the first index list (and gathers the planes in it).
    ///
    /// # Panics
    /// When `order` is not a permutation of the session's `n` samples (the launches would
    /// read and write outside the planes, or run one sample on two threads).
    fn reorder(&mut self, order: &[usize], _report: &mut RunReport) -> Result<(), Error> {
        let s = &mut *self.s;
        let mut seen = vec![false; s.n as usize];
        for &i in order {
            assert!(
                i < seen.len() && !std::mem::replace(&mut seen[i], true),
                "reorder: sample {i} is out of range or listed twice"
            );
        }
        assert_eq!(order.len(), seen.len(), "reorder: every sample once");
        let bytes: Vec<u8> = order
            .iter()
            .flat_map(|&i| (i as u32).to_ne_bytes())
            .collect();
        let ids = s.ids[0];
        // SAFETY: `ids` is an index list of `n` `u32`s; `bytes` is `n` of them.
        unsafe { s.be.upload(ids, &bytes) }?;
        self.layout = match self.strategy {
            DeviceCompaction::IndexList => Layout::Indexed(ids),
            DeviceCompaction::Gather => {
                // SAFETY: `ids` now holds `n` distinct ids below `n` (checked above).
                unsafe { s.move_planes::<K::Real>(true, true, s.n, ids) }?;
                Layout::Dense(ids)
            }
        };
        Ok(())
    }

    fn slots(&self) -> usize {
        self.slots as usize
    }

    /// `GraphWhile`: the whole loop of full-k launches as one WHILE graph.
    fn whole_loop(
        &mut self,
        plan: &Plan,
        from: u64,
        report: &mut RunReport,
    ) -> Result<Option<usize>, Error> {
        if self.arm != Arm::GraphWhile {
            return Ok(None);
        }
        if self.save.data != 0 {
            // The WHILE body would need the global step to advance on the device between
            // iterations; saving runs host-driven graph replays instead (the step count is
            // uploaded before each).
            report
                .notes
                .push("graph_while fell back to graph: saving points".into());
            self.arm = Arm::Graph;
            report.arm = Some(Arm::Graph);
            return Ok(None);
        }
        let left = plan.max_steps - from;
        let k = plan.next_k(left, false);
        let max_launches = u32::try_from(left / u64::from(k)).unwrap_or(u32::MAX);
        if plan.compaction != Compaction::Off {
            report
                .notes
                .push("graph_while: no compaction inside the device loop".into());
        }
        if max_launches == 0 {
            return Ok(None);
        }
        let (layout, slots) = (self.layout, self.slots);
        let before = report.launches;
        match self
            .s
            .while_loop::<K>(layout, slots, k, max_launches, &self.params, report)?
        {
            Some(active) => {
                self.running = active;
                // Without per-launch counts inside the loop, every launch is counted as
                // moving every slot's bytes (an upper bound).
                let l = report.launches - before;
                report.issued_bytes += l * self.issued.device_launch(slots, slots, false);
                Ok(Some(active as usize))
            }
            None => {
                self.arm = Arm::Graph;
                report.arm = Some(Arm::Graph);
                Ok(None)
            }
        }
    }

    fn launch(&mut self, k: u32, from: u64, report: &mut RunReport) -> Result<usize, Error> {
        let (arm, layout, slots) = (self.arm, self.layout, self.slots);
        if self.save.data != 0 {
            // Where this launch's points fall: 8 bytes, stream-ordered before the launch.
            // SAFETY: `step0` is the 8-byte step count `save_buffers` allocated.
            unsafe { self.s.be.upload(self.save.step0, &from.to_ne_bytes()) }?;
        }
        if let Some(p) = self.save_plan {
            report.issued_bytes += p.launch_bytes::<K::Real>(from, k, self.running as usize);
        }
        let active =
            self.s
                .launch_once::<K>(arm, layout, slots, k, &self.params, self.save, report)?;
        let indexed = matches!(layout, Layout::Indexed(_));
        report.issued_bytes += self.issued.device_launch(slots, self.running, indexed);
        self.running = active;
        Ok(active as usize)
    }

    fn compaction_due(&self, policy: Compaction, active: usize, _launch_s: f64) -> bool {
        policy.due(self.slots as usize, active)
    }

    fn compact(
        &mut self,
        _planes: &Bound<'_, K::Real>,
        active: usize,
        report: &mut RunReport,
    ) -> Result<(), Error> {
        let (layout, slots) = (self.layout, self.slots);
        self.layout = self.s.compact::<K>(layout, slots, self.strategy)?;
        let gather = self.strategy == DeviceCompaction::Gather;
        report.issued_bytes += self.issued.device_compaction(slots, active as u32, gather);
        self.slots = active as u32;
        Ok(())
    }

    /// Scatters dense planes home and brings the status bytes home; the results stay on
    /// the device (see [`Session::copy_home`]).
    fn finish(
        self,
        _planes: &mut Bound<'_, K::Real>,
        status: &mut [u8],
        _report: &mut RunReport,
    ) -> Result<(), Error> {
        if let Layout::Dense(ids) = self.layout {
            let _r = trace::range("scatter home");
            // SAFETY: a dense layout's index list holds its `slots` distinct ids below `n`
            // (the session's invariant).
            unsafe { self.s.move_planes::<K::Real>(false, false, self.slots, ids) }?;
        }
        // Waits for everything queued, then brings the status bytes home.
        let _r = trace::range("status to host");
        assert_eq!(
            status.len(),
            self.s.n as usize,
            "one status byte per sample"
        );
        // SAFETY: `term` holds `n` bytes, `status`'s length (checked above).
        unsafe { self.s.be.download(self.s.term, status) }?;
        Ok(())
    }
}

/// A runner's device session, whichever backend it has: what the runner calls.
pub(crate) trait DeviceSession<K: Kernel>: Send {
    /// One run through the launch loop (see [`Session::begin`]).
    fn run(
        &mut self,
        args: LoopArgs<'_, '_, K::Real>,
        save: Option<Saving<'_, K::Real>>,
    ) -> Result<RunReport, Error>;
    /// See [`Session::copy_home`].
    fn copy_home(
        &mut self,
        planes: &mut Bound<'_, K::Real>,
        traj: Option<&mut Trajectory<K::Real>>,
    ) -> Result<(), Error>;
    /// See [`Session::release_to_host`].
    fn release_to_host(
        &mut self,
        planes: &mut Bound<'_, K::Real>,
        traj: Option<&mut Trajectory<K::Real>>,
    ) -> Result<(), Error>;
}

impl<B: Backend + Send, K: Kernel> DeviceSession<K> for Session<B>
where
    K::Real: HostReal,
{
    fn run(
        &mut self,
        args: LoopArgs<'_, '_, K::Real>,
        save: Option<Saving<'_, K::Real>>,
    ) -> Result<RunReport, Error> {
        let (run, report) = self.begin::<K>(args.plan, args.planes, args.status, save)?;
        run_loop::<K, _>(run, args, report)
    }
    fn copy_home(
        &mut self,
        planes: &mut Bound<'_, K::Real>,
        traj: Option<&mut Trajectory<K::Real>>,
    ) -> Result<(), Error> {
        Session::copy_home(self, planes, traj)
    }
    fn release_to_host(
        &mut self,
        planes: &mut Bound<'_, K::Real>,
        traj: Option<&mut Trajectory<K::Real>>,
    ) -> Result<(), Error> {
        Session::release_to_host(self, planes, traj)
    }
}
