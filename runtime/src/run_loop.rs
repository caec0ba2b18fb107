//! The one launch loop, over [`TeamRun`]: reorder, launches of k steps, compaction
//! decisions, the per-launch bookkeeping, progress, and the stops (done, `max_steps`,
//! cancel, time limit). The host team and every device backend implement `TeamRun`; a new
//! team implements it and inherits all of this.

use crate::control::Control;
use crate::error::Error;
use crate::options::{Compaction, Plan, reorder_cmp};
use crate::planes::Bound;
use crate::report::{RunReport, Stop};
use crate::trace;
use hawk::Kernel;
use hawk_host::HostReal;
use std::time::Instant;

/// One run of kernel `K` on a team, as the launch loop drives it. The team holds the
/// run's working state (a work set on the host, device buffers on a device).
pub(crate) trait TeamRun<K: Kernel>: Sized {
    /// Puts the samples in `order` (a permutation of the caller's indices: slot `s` runs
    /// sample `order[s]`) before the first launch.
    fn reorder(&mut self, order: &[usize], report: &mut RunReport) -> Result<(), Error>;
    /// Slots the next launch covers (samples not yet compacted away).
    fn slots(&self) -> usize;
    /// Runs as many full launches of `k` steps as it can in one go on the team (a device
    /// WHILE graph), from global step `from` (of `plan.max_steps`), counting them in
    /// `report` (`launches`, `steps`, `launches_by_k`, `active_by_launch`,
    /// `slots_by_launch`), and returns the active count; `None` when the team has no such
    /// loop (the launch loop then launches one by one).
    fn whole_loop(
        &mut self,
        plan: &Plan,
        from: u64,
        report: &mut RunReport,
    ) -> Result<Option<usize>, Error> {
        let _ = (plan, from, report);
        Ok(None)
    }
    /// One launch of up to `k` steps for every slot, from global step `from` (the steps of
    /// this run taken before it: where the launch's save points fall); returns the samples
    /// still active.
    fn launch(&mut self, k: u32, from: u64, report: &mut RunReport) -> Result<usize, Error>;
    /// Whether to compact now, after a launch of `launch_s` seconds left `active` of
    /// [`TeamRun::slots`] active.
    fn compaction_due(&self, policy: Compaction, active: usize, launch_s: f64) -> bool;
    /// Compacts the finished samples away (`active` of them stay); `planes` are the
    /// caller's (where samples not in the working set are).
    fn compact(
        &mut self,
        planes: &Bound<'_, K::Real>,
        active: usize,
        report: &mut RunReport,
    ) -> Result<(), Error>;
    /// Ends the run: every sample back in the caller's order, the status bytes in
    /// `status` (the host team also writes the caller's planes).
    fn finish(
        self,
        planes: &mut Bound<'_, K::Real>,
        status: &mut [u8],
        report: &mut RunReport,
    ) -> Result<(), Error>;
}

/// What one call of the launch loop works on, whichever team runs it: the same for the
/// host team ([`run_loop`] directly) and a device session (`DeviceSession::run`).
pub(crate) struct LoopArgs<'r, 'a, R> {
    /// The run's steps policy, compaction, reorder and step cap.
    pub plan: &'r Plan,
    /// The caller's planes, bound to the kernel.
    pub planes: &'r mut Bound<'a, R>,
    /// One status byte per sample in the caller's order: all `ACTIVE` for a fresh run,
    /// where the last run stopped for a resume; the run's end state when it returns.
    pub status: &'r mut [u8],
    /// Steps of this run already taken (by the calls it resumes).
    pub steps_before: u64,
    /// Cancel, time limit and progress, asked at launch boundaries.
    pub ctl: &'r Control,
}

/// Runs the launch loop on `team` with `args`; `report` holds the team's fields. Returns
/// the report with the loop's counts and the stop.
pub(crate) fn run_loop<K: Kernel, T: TeamRun<K>>(
    mut team: T,
    args: LoopArgs<'_, '_, K::Real>,
    mut report: RunReport,
) -> Result<RunReport, Error>
where
    K::Real: HostReal,
{
    let LoopArgs {
        plan,
        planes,
        status,
        steps_before,
        ctl,
    } = args;
    let n = planes.n;
    if let Some(j) = plan.reorder_key {
        let _r = trace::range("reorder");
        let key = planes.per_sample::<K>(j);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| reorder_cmp(key[a], key[b]));
        team.reorder(&order, &mut report)?;
        report.reorders += 1;
    }
    let mut active = status.iter().filter(|&&b| b == hawk::ACTIVE).count();
    let mut steps = steps_before;
    let mut stop = None;
    if active > 0 && steps < plan.max_steps {
        match ctl.should_stop(0) {
            Some(why) => stop = Some(why),
            None => {
                let before = report.steps;
                if let Some(a) = team.whole_loop(plan, steps, &mut report)? {
                    active = a;
                    steps += report.steps - before;
                    ctl.progress(steps, active, report.launches);
                }
            }
        }
    }
    while stop.is_none() && active > 0 && steps < plan.max_steps {
        if let Some(why) = ctl.should_stop(report.launches) {
            stop = Some(why);
            break;
        }
        let k = plan.next_k(plan.max_steps - steps, active < n);
        report.slots_by_launch.push(team.slots());
        let t0 = Instant::now();
        active = team.launch(k, steps, &mut report)?;
        let launch_s = t0.elapsed().as_secs_f64();
        report.launches += 1;
        report.steps += u64::from(k);
        steps += u64::from(k);
        *report.launches_by_k.entry(k).or_default() += 1;
        report.active_by_launch.push(active);
        ctl.progress(steps, active, report.launches);
        if active > 0 && team.compaction_due(plan.compaction, active, launch_s) {
            team.compact(planes, active, &mut report)?;
            report.compactions += 1;
        }
    }
    team.finish(planes, status, &mut report)?;
    report.active = active;
    report.stop = stop.unwrap_or(if active == 0 {
        Stop::Done
    } else {
        Stop::MaxSteps
    });
    Ok(report)
}
