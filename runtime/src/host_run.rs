//! The host team's side of the launch loop: a working copy of the planes, launches over
//! rayon chunks (probing lane shapes under `lanes: auto`), compaction into the caller's
//! order, and one write home at the end.

use crate::alloc::filled;
use crate::bytes::IssuedBytes;
use crate::error::Error;
use crate::options::Compaction;
use crate::planes::Bound;
use crate::report::{RunReport, TeamKind};
use crate::run_loop::TeamRun;
use crate::runner::Saving;
use crate::trace;
use hawk::Kernel;
use hawk::save::SaveTarget;
use hawk_host::{
    HostReal, HostTeam, LaunchPlan, ProbeTiming, Shape, ShapeChoice, ShapeSource, WorkBuf, WorkSet,
};
use std::borrow::Cow;
use std::time::Instant;

/// One run on the host team: the work set (inputs borrowed, mutable planes copied into
/// buffers the team keeps between runs) and where compacted samples wait.
pub(crate) struct HostRun<'t, 'a, R: HostReal> {
    team: &'t HostTeam,
    work: WorkSet<'a, R>,
    /// Samples compacted away wait here, in the caller's order, until the run ends.
    home: Option<Home<R>>,
    /// The last compaction pass's wall time: what `Compaction::Auto` weighs a pass against.
    pass_s: Option<f64>,
    lane_steps: u64,
    issued: IssuedBytes,
    /// Where the lane groups write save points (written by caller id, so compaction and
    /// reorder never move them).
    save: Option<Saving<'t, R>>,
}

impl<'t, 'a, R: HostReal> HostRun<'t, 'a, R> {
    /// Starts a run from the caller's planes and the status bytes in `status`, and the
    /// report's team fields.
    pub fn begin<K: Kernel<Real = R>>(
        team: &'t HostTeam,
        planes: &Bound<'a, R>,
        status: &[u8],
        save: Option<Saving<'t, R>>,
    ) -> Result<(Self, RunReport), Error> {
        let copy = trace::range("copy in");
        let muts = working_copies(planes, team)?;
        let ins = planes.ins.iter().map(|d| Cow::Borrowed(*d)).collect();
        let work = WorkSet::new(ins, planes.params.clone(), muts).with_status(status);
        drop(copy);
        let report = RunReport {
            samples: planes.n,
            team: TeamKind::Host,
            ..RunReport::default()
        };
        let run = HostRun {
            team,
            work,
            home: None,
            pass_s: None,
            lane_steps: 0,
            issued: IssuedBytes::of::<K>(),
            save,
        };
        Ok((run, report))
    }

    /// One launch of `k` steps at the team's shape, or, under `lanes: auto` until a shape
    /// is chosen, a measurement (a probe or a finalist's timed launch: useful work, timed).
    /// Returns the launch's stats, the shape, and whether the launch measured.
    fn launch_or_probe<K: Kernel<Real = R>>(
        &mut self,
        k: u32,
        from: u64,
    ) -> (hawk_host::LaunchStats, ShapeChoice, bool) {
        let team = self.team;
        let work = &mut self.work;
        let save = match &mut self.save {
            Some(s) => s.plan.target(s.traj, from),
            None => SaveTarget::NONE,
        };
        match team.next_launch::<K>() {
            LaunchPlan::Run(c) => (team.launch_shape::<K>(work, k, c.shape, save), c, false),
            LaunchPlan::Time(shape) => {
                // The whole launch's busy time: its chunks' times summed.
                let (stats, chunks) = team.launch_probe::<K>(work, k, &[shape], save);
                let one = ProbeTiming {
                    shape,
                    secs: chunks.iter().map(|c| c.secs).sum(),
                    lane_steps: chunks.iter().map(|c| c.lane_steps).sum(),
                    whole: true,
                };
                (
                    stats,
                    team.record_probe::<K>(&[one]).unwrap_or(probing(shape)),
                    true,
                )
            }
            LaunchPlan::Probe(shapes) => {
                let (stats, timings) = team.launch_probe::<K>(work, k, &shapes, save);
                (
                    stats,
                    team.record_probe::<K>(&timings)
                        .unwrap_or(probing(shapes[0])),
                    true,
                )
            }
        }
    }
}

/// A launch's shape while `lanes: auto` is still measuring.
fn probing(shape: Shape) -> ShapeChoice {
    ShapeChoice {
        shape,
        source: ShapeSource::Probing,
    }
}

impl<K: Kernel> TeamRun<K> for HostRun<'_, '_, K::Real>
where
    K::Real: HostReal,
{
    fn reorder(&mut self, order: &[usize], report: &mut RunReport) -> Result<(), Error> {
        self.work.permute(order, &mut self.team.buffers());
        report.issued_bytes += self.issued.compaction(order.len());
        Ok(())
    }

    fn slots(&self) -> usize {
        self.work.len()
    }

    fn launch(&mut self, k: u32, from: u64, report: &mut RunReport) -> Result<usize, Error> {
        let (stats, choice, measured) = {
            let _r = trace::range("launch");
            self.launch_or_probe::<K>(k, from)
        };
        if let Some(s) = &self.save {
            report.issued_bytes += s.plan.launch_bytes::<K::Real>(from, k, stats.loaded);
        }
        // A shape probed during this run is reported as probed, not as measured earlier.
        report.lanes = match report.lanes {
            Some(prev) if prev.source == ShapeSource::Probed => Some(ShapeChoice {
                shape: choice.shape,
                ..prev
            }),
            _ => Some(choice),
        };
        report.tuning_launches += u64::from(measured);
        report.issued_bytes += self.issued.host_launch(self.work.len(), stats.loaded);
        self.lane_steps += stats.lane_steps;
        Ok(stats.active)
    }

    fn compaction_due(&self, policy: Compaction, active: usize, launch_s: f64) -> bool {
        policy.due_timed(self.work.len(), active, launch_s, self.pass_s)
    }

    fn compact(
        &mut self,
        planes: &Bound<'_, K::Real>,
        _active: usize,
        report: &mut RunReport,
    ) -> Result<(), Error> {
        let _r = trace::range("compaction");
        let team = self.team;
        if self.home.is_none() {
            self.home = Some(Home::of(planes, team)?);
        }
        let h = self.home.as_mut().expect("made above");
        let before = self.work.len();
        let t0 = Instant::now();
        let work = &mut self.work;
        team.install(|| work.compact(&mut h.muts, &mut h.terminated));
        self.pass_s = Some(t0.elapsed().as_secs_f64());
        report.issued_bytes += self.issued.compaction(before);
        Ok(())
    }

    fn finish(
        mut self,
        planes: &mut Bound<'_, K::Real>,
        status: &mut [u8],
        report: &mut RunReport,
    ) -> Result<(), Error> {
        // Write every sample home, then into the caller's planes in one pass.
        let _r = trace::range("write home");
        let team = self.team;
        if self.work.in_caller_order() {
            for (j, dst) in planes.muts.iter_mut().enumerate() {
                dst.copy_from_slice(self.work.mutable(j));
            }
            status.copy_from_slice(self.work.terminated());
        } else {
            let mut h = match self.home.take() {
                Some(h) => h,
                None => Home::of(planes, team)?,
            };
            self.work.scatter(&mut h.muts, &mut h.terminated);
            for (dst, src) in planes.muts.iter_mut().zip(&h.muts) {
                dst.copy_from_slice(src);
            }
            status.copy_from_slice(&h.terminated);
            team.buffers().keep(h.muts);
        }
        team.buffers().keep(self.work.into_mutables());
        report.issued_sample_steps = Some(self.lane_steps);
        Ok(())
    }
}

/// Where samples wait in the caller's order once compaction moved them out of the work set.
struct Home<R: Copy> {
    muts: Vec<WorkBuf<R>>,
    terminated: Vec<u8>,
}

impl<R: HostReal> Home<R> {
    /// A copy of the caller's mutable planes (in buffers the team kept), nothing terminated.
    fn of(planes: &Bound<'_, R>, team: &HostTeam) -> Result<Self, Error> {
        Ok(Home {
            muts: working_copies(planes, team)?,
            terminated: filled(0, planes.n, "the samples' status bytes")?,
        })
    }
}

/// Copies of the caller's mutable planes in buffers the team kept (or new ones);
/// [`Error::HostOutOfMemory`] when memory for them runs out (the copies made so far go
/// back to the team).
fn working_copies<R: HostReal>(
    planes: &Bound<'_, R>,
    team: &HostTeam,
) -> Result<Vec<WorkBuf<R>>, Error> {
    let mut kept = team.buffers();
    let mut muts = Vec::with_capacity(planes.muts.len());
    for d in &planes.muts {
        match kept.copy_of(d) {
            Ok(b) => muts.push(b),
            Err(e) => {
                kept.keep(muts);
                return Err(Error::HostOutOfMemory {
                    what: "the working copies of the mutable planes",
                    bytes: e.bytes as u128 * planes.muts.len() as u128,
                });
            }
        }
    }
    Ok(muts)
}
