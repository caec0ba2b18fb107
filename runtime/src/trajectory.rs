//! Saved points of a run (a trajectory): the plan checked against the kernel and sized
//! before anything runs ([`SavePlan`]), and the buffer the runner keeps between runs
//! ([`Trajectory`]).
//!
//! Layout: values `[plane][point][sample]` (each saved plane one contiguous `points x
//! samples` block: a lane group's consecutive samples are one vector store), statuses
//! `[point][sample]`, one byte each: [`hawk::save::NOT_REACHED`] (0) until written, then the
//! sample's status byte plus one. Samples are in the caller's order whatever compaction and
//! reorder do (the kernels write by caller id).

use crate::alloc::filled;
use crate::error::Error;
use crate::options::{SaveAt, SaveWhen};
use hawk::save::{NOT_REACHED, SaveTarget};
use hawk::{Kernel, Real, Role};
use hawk_host::workbuf::advise_huge_pages;

/// The status of one saved point of one sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PointStatus {
    /// The sample was still running at that point.
    Running,
    /// The sample had finished (its kernel set `terminated`) at or before that point: the
    /// saved state is its final state.
    Finished,
    /// The sample had failed at or before that point: the saved state is its state from
    /// before the failing step.
    Failed,
    /// The run did not reach that point (it stopped at `max_steps`, was cancelled or ran
    /// out of time first); the saved values are meaningless.
    NotReached,
}

impl PointStatus {
    /// From a status byte of the buffer.
    pub fn from_byte(b: u8) -> Self {
        match b {
            NOT_REACHED => PointStatus::NotReached,
            b if b == hawk::ACTIVE + 1 => PointStatus::Running,
            b if b == hawk::FAILED + 1 => PointStatus::Failed,
            _ => PointStatus::Finished,
        }
    }
}

/// What a run saves, checked against the kernel: the schedule, the planes, the sizes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SavePlan {
    /// Steps mode: a point every `every` steps; 0 in times mode.
    pub every: u32,
    /// Times mode: the times (as given, in `f64`).
    pub times: Vec<f64>,
    /// Points per sample.
    pub points: usize,
    /// Bit `j`: mutable plane `j` saved.
    pub mask: u64,
    /// The saved planes' names, in declaration order.
    pub names: Vec<String>,
    /// The time plane's index among the mutable planes (times mode).
    pub time: u32,
    /// Samples.
    pub n: usize,
    /// Bytes the values and statuses take.
    pub bytes: u64,
}

/// Bytes as `157.3 MB`.
pub(crate) fn human(bytes: u64) -> String {
    let b = bytes as f64;
    match b {
        _ if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        _ if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        _ if b >= 1e3 => format!("{:.1} kB", b / 1e3),
        _ => format!("{bytes} B"),
    }
}

/// Host memory available for new allocations (`MemAvailable` of `/proc/meminfo`), if known.
fn host_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The most bytes saved points may take when `Options::trajectory_limit` is not given:
/// 1 GiB, so that a step cap meant as a safety net (`SaveAt::every` sizes for `max_steps /
/// m` points) is never a silent multi-gigabyte allocation.
pub const DEFAULT_TRAJECTORY_LIMIT: u64 = 1 << 30;

impl SavePlan {
    /// Checks `save` against kernel `K`, `max_steps` and `n` samples, and sizes it against
    /// `limit` and the host's available memory. Nothing is allocated.
    pub fn new<K: Kernel>(
        save: &SaveAt,
        max_steps: u64,
        n: usize,
        limit: Option<u64>,
    ) -> Result<Self, Error> {
        let muts: Vec<String> = crate::planes::component_names::<K>(Role::Mut).collect();
        if muts.len() > 64 {
            return Err(Error::Save(format!(
                "kernel `{}` has {} mutable components; saving handles at most 64",
                K::NAME,
                muts.len()
            )));
        }
        let mask = match &save.planes {
            None => (1u128 << muts.len()).wrapping_sub(1) as u64,
            Some(names) => {
                let mut m = 0u64;
                for name in names {
                    // A component (`u[3]`), a single plane, or a whole array plane (`u`).
                    let whole = format!("{name}[");
                    let bits = muts
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| *p == name || p.starts_with(&whole))
                        .fold(0u64, |b, (j, _)| b | 1 << j);
                    if bits == 0 {
                        return Err(Error::Save(format!(
                            "kernel `{}` has no mutable plane `{name}` to save (its mutable \
                             components: {})",
                            K::NAME,
                            muts.join(", ")
                        )));
                    }
                    m |= bits;
                }
                if m == 0 {
                    return Err(Error::Save(
                        "SaveAt::planes names no plane: save at least one".into(),
                    ));
                }
                m
            }
        };
        let names: Vec<String> = (0..muts.len())
            .filter(|j| mask >> j & 1 == 1)
            .map(|j| muts[j].clone())
            .collect();
        let time = match K::TIME {
            Some(t) => muts.iter().position(|p| *p == t).unwrap_or(0) as u32,
            None => 0,
        };
        let (every, times, points) = match &save.when {
            SaveWhen::Every(m) => {
                if *m == 0 || *m > max_steps {
                    return Err(Error::Save(format!(
                        "SaveAt::every({m}) saves no point within max_steps = {max_steps}: \
                         use 1 <= m <= max_steps"
                    )));
                }
                let every = u32::try_from(*m).map_err(|_| {
                    Error::Save(format!("SaveAt::every({m}): m must be below 2^32"))
                })?;
                (every, Vec::new(), (max_steps / m) as usize)
            }
            SaveWhen::Times(ts) => {
                if K::TIME.is_none() {
                    return Err(Error::Save(format!(
                        "kernel `{}` declares no time plane, so it cannot save at times: \
                         name it with #[kernel(time = t)], or save every m steps",
                        K::NAME
                    )));
                }
                check_times::<K::Real>(ts)?;
                (0, ts.clone(), ts.len())
            }
        };
        if points > u32::MAX as usize {
            return Err(Error::Save(format!(
                "{points} points per sample is more than 2^32 - 1"
            )));
        }
        let per = (names.len() * K::Real::BYTES + 1) as u64;
        let bytes = (points as u64).saturating_mul(n as u64).saturating_mul(per);
        let plan = SavePlan {
            every,
            times,
            points,
            mask,
            names,
            time,
            n,
            bytes,
        };
        let (l, what) = match limit {
            Some(l) => (l, "the trajectory limit (Options::trajectory_limit)"),
            None => (
                DEFAULT_TRAJECTORY_LIMIT,
                "the default trajectory limit (1 GiB: give Options::trajectory_limit to allow \
                 more; SaveAt::every sizes for max_steps, so an adaptive kernel that finishes \
                 long before it may want SaveAt::times instead)",
            ),
        };
        if bytes > l {
            return Err(plan.too_large::<K>(l, what));
        }
        if let Some(avail) = host_available()
            && bytes > avail
        {
            return Err(plan.too_large::<K>(avail, "the host's available memory"));
        }
        Ok(plan)
    }

    /// The refusal naming the size and how to shrink it.
    pub fn too_large<K: Kernel>(&self, limit: u64, what: &str) -> Error {
        let f32_hint = if K::Real::BYTES > 4 {
            ", an f32 kernel (half the bytes per value)"
        } else {
            ""
        };
        Error::TrajectoryTooLarge {
            bytes: self.bytes,
            limit,
            message: format!(
                "the trajectory needs {} ({} points x {} samples x ({} planes x {} bytes + 1 \
                 status byte)), more than {what} ({}): save fewer planes \
                 (SaveAt::planes), fewer points (a larger m in SaveAt::every, fewer times){f32_hint}, \
                 or fewer samples per run",
                human(self.bytes),
                self.points,
                self.n,
                self.names.len(),
                K::Real::BYTES,
                human(limit),
            ),
        }
    }

    /// The refusal of a device whose free memory is `free` bytes.
    pub fn too_large_on_device(&self, elem_bytes: usize, free: u64) -> Error {
        let f32_hint = if elem_bytes > 4 {
            ", an f32 kernel"
        } else {
            ""
        };
        Error::TrajectoryTooLarge {
            bytes: self.bytes,
            limit: free,
            message: format!(
                "the trajectory needs {} on the device ({} points x {} samples x {} planes), \
                 more than its free memory ({}): save fewer planes (SaveAt::planes), fewer \
                 points{f32_hint}, or run on the host team",
                human(self.bytes),
                self.points,
                self.n,
                self.names.len(),
                human(free),
            ),
        }
    }

    /// Bytes a launch of `k` steps from step `from` over `slots` slots writes as save
    /// points (steps mode; times mode writes per lane as samples reach their times and is
    /// not counted).
    pub fn launch_bytes<R: Real>(&self, from: u64, k: u32, slots: usize) -> u64 {
        if self.every == 0 {
            return 0;
        }
        let e = u64::from(self.every);
        let points = (from + u64::from(k)) / e - from / e;
        points * slots as u64 * (self.names.len() * R::BYTES + 1) as u64
    }

    /// The times in the kernel's element type.
    pub fn times_as<R: Real>(&self) -> Vec<R> {
        self.times.iter().map(|&t| R::from_f64(t)).collect()
    }

    /// A save target over `traj`'s buffers, for launches from global step `step0`.
    ///
    /// # Panics
    /// When `traj`'s buffers are not this plan's sizes.
    pub fn target<R: Real>(&self, traj: &mut Trajectory<R>, step0: u64) -> SaveTarget<R> {
        let (q, p, n) = (self.names.len(), self.points, self.n);
        let sized = q.checked_mul(p).and_then(|qp| qp.checked_mul(n)) == Some(traj.data.len())
            && p.checked_mul(n) == Some(traj.status.len())
            && (self.every > 0 || traj.times_r.len() == p)
            && self.mask.count_ones() as usize == q;
        assert!(sized, "a trajectory not sized for its save plan");
        let points = u32::try_from(p).expect("points are checked below 2^32 by SavePlan::new");
        let n = u32::try_from(n).expect("a trajectory of more than 2^32 - 1 samples");
        let times = if self.every == 0 {
            traj.times_r.as_ptr()
        } else {
            std::ptr::null()
        };
        // SAFETY: the buffers have the sizes the target's `planes`, `points` and `n` need
        // (checked above; `times` in times mode too), are separate allocations of `traj`,
        // which the run borrows mutably, and nothing else touches them while the launch that
        // gets this target runs (each host launch gets a new one).
        unsafe {
            SaveTarget::new(
                traj.data.as_mut_ptr(),
                traj.status.as_mut_ptr(),
                times,
                self.every,
                step0,
                points,
                n,
                self.mask,
                self.time,
            )
        }
    }
}

/// Save times must be finite, strictly increasing, at least one, and stay strictly
/// increasing in the kernel's element type.
fn check_times<R: Real>(ts: &[f64]) -> Result<(), Error> {
    if ts.is_empty() {
        return Err(Error::Save(
            "SaveAt::times got no time: give at least one".into(),
        ));
    }
    for (j, &t) in ts.iter().enumerate() {
        if !t.is_finite() {
            return Err(Error::Save(format!(
                "SaveAt::times: time {j} is {t}; save times must be finite"
            )));
        }
        if j > 0 && t <= ts[j - 1] {
            return Err(Error::Save(format!(
                "SaveAt::times must be strictly increasing, but time {j} ({t}) follows {}",
                ts[j - 1]
            )));
        }
        if j > 0 && R::from_f64(t) <= R::from_f64(ts[j - 1]) {
            return Err(Error::Save(format!(
                "SaveAt::times: times {} and {j} ({} and {t}) are equal in {}",
                j - 1,
                ts[j - 1],
                R::NAME
            )));
        }
    }
    Ok(())
}

/// Touches every 4 KB page of a new, untouched buffer once (writing the zero it holds), in
/// parallel over pieces that each cover whole huge pages. Linux zeroes a page at its first
/// touch; touched by the run, the lane groups of both halves of the ensemble reach the same
/// huge page together and one thread waits while the other zeroes it (the first run's
/// zeroing took twice as long as zeroing the buffer in parallel). Run it on the team's
/// threads.
fn first_touch<T: Copy + Send + Sync>(v: &mut [T], zero: T) {
    use hawk_host::workbuf::HUGE;
    use rayon::prelude::*;
    const PAGE: usize = 4096;
    let size = std::mem::size_of::<T>().max(1);
    let head = ((v.as_ptr() as usize).next_multiple_of(HUGE) - v.as_ptr() as usize) / size;
    let (head, rest) = v.split_at_mut(head.min(v.len()));
    let touch = |c: &mut [T]| {
        for x in c.iter_mut().step_by((PAGE / size).max(1)) {
            // Volatile: a plain store of zero into zeroed memory may be optimized away.
            // SAFETY: `x` is a `&mut T`: valid, aligned and exclusively borrowed.
            unsafe { std::ptr::write_volatile(x, zero) };
        }
    };
    touch(head);
    rest.par_chunks_mut((HUGE / size).max(1)).for_each(touch);
}

/// A zeroed buffer whose first element starts a cache line (64 bytes), so the host team's
/// streaming stores of saved points fill whole lines. Zeroed lazily, as `vec![0; n]` is
/// (the allocator maps zero pages); the alignment is kept by an offset into a slightly longer
/// `Vec`. A clone may lose it, which costs speed only: the stores check alignment.
#[derive(Clone, Debug)]
pub(crate) struct LineBuf<R> {
    buf: Vec<R>,
    off: usize,
    len: usize,
}

impl<R: Real> LineBuf<R> {
    const LINE: usize = 64;

    fn zeroed(len: usize) -> Result<Self, Error> {
        let buf = filled(
            R::from_f64(0.0),
            len + Self::LINE / R::BYTES,
            "the saved points",
        )?;
        let start = buf.as_ptr() as usize;
        let off = (start.next_multiple_of(Self::LINE) - start) / R::BYTES;
        Ok(LineBuf { buf, off, len })
    }
}

impl<R> std::ops::Deref for LineBuf<R> {
    type Target = [R];
    fn deref(&self) -> &[R] {
        &self.buf[self.off..self.off + self.len]
    }
}

impl<R> std::ops::DerefMut for LineBuf<R> {
    fn deref_mut(&mut self) -> &mut [R] {
        &mut self.buf[self.off..self.off + self.len]
    }
}

/// The saved points of a run: for each sample (in the caller's order), point and saved
/// plane, a value, and a [`PointStatus`] per sample and point. The runner keeps it between
/// runs (a later run reuses the memory: no allocation or page faults); each `run()`
/// overwrites it. On a device team it comes home with `to_host()`, as the planes do.
///
/// Point `j` of sample `i` is, bit for bit, plane values and status of a run of the same
/// samples stopped exactly there (at step `(j + 1) m`, or at the first state at or past
/// `times[j]`). A sample that finished or failed earlier keeps its last state for later
/// points (marked [`PointStatus::Finished`] / [`PointStatus::Failed`]).
#[derive(Clone, Debug)]
pub struct Trajectory<R> {
    names: Vec<String>,
    n: usize,
    points: usize,
    steps: Option<Vec<u64>>,
    times: Option<Vec<f64>>,
    pub(crate) times_r: Vec<R>,
    pub(crate) data: LineBuf<R>,
    pub(crate) status: Vec<u8>,
}

impl<R: Real> Trajectory<R> {
    /// An empty trajectory for `plan` (the memory is zeroed lazily by the allocator: pages
    /// are touched by the first run that writes them).
    pub(crate) fn new(plan: &SavePlan) -> Result<Self, Error> {
        let (q, p, n) = (plan.names.len(), plan.points, plan.n);
        let mut data = LineBuf::zeroed(q * p * n)?;
        advise_huge_pages(&mut data);
        let mut status = filled(NOT_REACHED, p * n, "the saved points' statuses")?;
        advise_huge_pages(&mut status);
        Ok(Trajectory {
            names: plan.names.clone(),
            n,
            points: p,
            steps: (plan.every > 0)
                .then(|| (1..=p as u64).map(|j| j * u64::from(plan.every)).collect()),
            times: (plan.every == 0).then(|| plan.times.clone()),
            times_r: plan.times_as::<R>(),
            data,
            status,
        })
    }

    /// Faults in the new buffers' pages in parallel (on the calling thread pool), before
    /// the run writes them.
    pub(crate) fn first_touch(&mut self) {
        first_touch(&mut self.data, R::from_f64(0.0));
        first_touch(&mut self.status, NOT_REACHED);
    }

    /// Every point back to [`PointStatus::NotReached`] (the start of a run).
    pub(crate) fn reset(&mut self) {
        self.status.fill(NOT_REACHED);
    }

    /// Samples.
    pub fn samples(&self) -> usize {
        self.n
    }

    /// Points per sample.
    pub fn points(&self) -> usize {
        self.points
    }

    /// The saved planes' names, in the kernel's declaration order.
    pub fn plane_names(&self) -> &[String] {
        &self.names
    }

    /// Saving every `m` steps: the global step of each point (`m, 2m, ...`).
    pub fn steps(&self) -> Option<&[u64]> {
        self.steps.as_deref()
    }

    /// Saving at times: the requested time of each point (the time plane, when saved,
    /// holds the time each sample actually reached).
    pub fn times(&self) -> Option<&[f64]> {
        self.times.as_deref()
    }

    fn q(&self, plane: &str) -> Result<usize, Error> {
        self.names
            .iter()
            .position(|p| *p == plane)
            .ok_or_else(|| Error::NoSuchPlane {
                plane: plane.to_owned(),
            })
    }

    /// Plane `plane` of every sample at every point: `points x samples` values, point
    /// major (`[j * samples + i]`).
    pub fn plane(&self, plane: &str) -> Result<&[R], Error> {
        let (q, block) = (self.q(plane)?, self.points * self.n);
        Ok(&self.data[q * block..(q + 1) * block])
    }

    /// The value of `plane` for sample `i` at point `j`.
    ///
    /// # Panics
    /// When `i` or `j` is out of range.
    pub fn get(&self, i: usize, j: usize, plane: &str) -> Result<R, Error> {
        assert!(
            i < self.n && j < self.points,
            "point ({i}, {j}) out of range"
        );
        Ok(self.plane(plane)?[j * self.n + i])
    }

    /// Sample `i`'s values of `plane` at every point, in order.
    pub fn series(&self, i: usize, plane: &str) -> Result<Vec<R>, Error> {
        assert!(i < self.n, "sample {i} out of range");
        let p = self.plane(plane)?;
        Ok((0..self.points).map(|j| p[j * self.n + i]).collect())
    }

    /// The status of sample `i` at point `j`.
    pub fn status(&self, i: usize, j: usize) -> PointStatus {
        assert!(
            i < self.n && j < self.points,
            "point ({i}, {j}) out of range"
        );
        PointStatus::from_byte(self.status[j * self.n + i])
    }

    /// Every status byte, point major (`[j * samples + i]`): `0` not reached, else the
    /// sample's status byte (`hawk::ACTIVE`, `FINISHED`, `FAILED`) plus one.
    pub fn status_bytes(&self) -> &[u8] {
        &self.status
    }

    /// Bytes of values and statuses.
    pub fn bytes(&self) -> usize {
        self.data.len() * R::BYTES + self.status.len()
    }

    /// `true` when this buffer has the shape `plan` needs.
    pub(crate) fn fits(&self, plan: &SavePlan) -> bool {
        self.names == plan.names
            && self.n == plan.n
            && self.points == plan.points
            && self.times.as_deref().unwrap_or(&[]) == plan.times.as_slice()
    }
}
