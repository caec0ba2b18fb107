//! The host team's launch loop: work on a copy, launch, compact, reorder, write home.

use crate::bytes::IssuedBytes;
use crate::control::Control;
use crate::options::{Plan, reorder_cmp};
use crate::planes::Bound;
use crate::report::{RunReport, Stop};
use crate::trace;
use hawk::Kernel;
use hawk_host::{HostReal, HostTeam, LaunchPlan, ProbeTiming, ShapeChoice, ShapeSource, WorkSet};
use std::borrow::Cow;
use std::time::Instant;

/// Runs the launch loop on the host team from the status bytes in `status` (all `0` for a
/// fresh run) with `steps_before` steps of this run already taken; writes the caller's
/// planes and `status` once, at the end (also when the run stops early).
pub(crate) fn run_host<K: Kernel>(
    team: &HostTeam,
    plan: &Plan,
    planes: &mut Bound<'_, K::Real>,
    status: &mut [u8],
    steps_before: u64,
    ctl: &Control,
) -> RunReport
where
    K::Real: HostReal,
{
    let p = &*planes;
    let copy = trace::range("copy in");
    let muts = {
        let mut kept = team.buffers();
        p.muts.iter().map(|d| kept.copy_of(d)).collect()
    };
    let ins = p.ins.iter().map(|d| Cow::Borrowed(*d)).collect();
    let mut work = WorkSet::new(ins, p.params.clone(), muts).with_status(status);
    drop(copy);
    let issued = IssuedBytes::of::<K>();
    let mut report = RunReport {
        samples: p.n,
        team: "host",
        arm: "host",
        ..RunReport::default()
    };
    if let Some(j) = plan.reorder_key {
        let _r = trace::range("reorder");
        let key = p.per_sample::<K>(j);
        let mut order: Vec<usize> = (0..p.n).collect();
        order.sort_by(|&a, &b| reorder_cmp(key[a], key[b]));
        work.permute(&order);
        report.reorders += 1;
        report.issued_bytes += issued.compaction(p.n);
    }
    // Samples compacted away wait here, in the caller's order, until the run ends.
    let mut home: Option<Home<K::Real>> = None;
    let mut active = work.active();
    let mut steps = steps_before;
    let mut stop = None;
    // The last compaction pass's wall time: what `Compaction::Auto` weighs a pass against.
    let mut pass_s = None;
    let mut lane_steps = 0;
    while active > 0 && steps < plan.max_steps {
        if let Some(why) = ctl.should_stop(report.launches) {
            stop = Some(why);
            break;
        }
        let k = plan.next_k(plan.max_steps - steps, active < p.n);
        report.slots_by_launch.push(work.len());
        // `lanes: auto`: until a shape is chosen, launches are probes (useful work, timed).
        let plan_now = team.next_launch::<K>();
        let t0 = Instant::now();
        let (stats, choice) = {
            let _r = trace::range("launch");
            match plan_now {
                LaunchPlan::Run(c) => (team.launch_shape::<K>(&mut work, k, c.shape), c),
                LaunchPlan::Probe(shapes) => {
                    let (stats, timings) = match shapes[..] {
                        // A finalist: one whole launch at its shape, timed by the wall clock.
                        [shape] => {
                            let t = Instant::now();
                            let stats = team.launch_shape::<K>(&mut work, k, shape);
                            let secs = t.elapsed().as_secs_f64();
                            let lane_steps = stats.lane_steps;
                            let one = ProbeTiming {
                                shape,
                                secs,
                                lane_steps,
                            };
                            (stats, vec![one])
                        }
                        _ => team.launch_probe::<K>(&mut work, k, &shapes),
                    };
                    let probing = ShapeChoice {
                        shape: shapes[0],
                        source: ShapeSource::Probing,
                    };
                    (stats, team.record_probe::<K>(&timings).unwrap_or(probing))
                }
            }
        };
        let launch_s = t0.elapsed().as_secs_f64();
        // A shape probed during this run is reported as probed, not as measured earlier.
        report.lanes = match report.lanes {
            Some(prev) if prev.source == ShapeSource::Probed => Some(ShapeChoice {
                shape: choice.shape,
                ..prev
            }),
            _ => Some(choice),
        };
        active = stats.active;
        report.issued_bytes += issued.host_launch(work.len(), stats.loaded);
        lane_steps += stats.lane_steps;
        report.launches += 1;
        report.steps += u64::from(k);
        steps += u64::from(k);
        *report.launches_by_k.entry(k).or_default() += 1;
        report.active_by_launch.push(active);
        ctl.progress(steps, active, report.launches);
        if active > 0
            && plan
                .compaction
                .due_timed(work.len(), active, launch_s, pass_s)
        {
            let _r = trace::range("compaction");
            let h = home.get_or_insert_with(|| Home::of(planes, team));
            let before = work.len();
            let t0 = Instant::now();
            team.install(|| work.compact(&mut h.muts, &mut h.terminated));
            pass_s = Some(t0.elapsed().as_secs_f64());
            report.issued_bytes += issued.compaction(before);
            report.compactions += 1;
        }
    }
    // Write every sample home, then into the caller's planes in one pass.
    let _r = trace::range("write home");
    if work.in_caller_order() {
        for (j, dst) in planes.muts.iter_mut().enumerate() {
            dst.copy_from_slice(work.mutable(j));
        }
        status.copy_from_slice(work.terminated());
    } else {
        let mut h = home.unwrap_or_else(|| Home::of(planes, team));
        work.scatter(&mut h.muts, &mut h.terminated);
        for (dst, src) in planes.muts.iter_mut().zip(&h.muts) {
            dst.copy_from_slice(src);
        }
        status.copy_from_slice(&h.terminated);
        team.buffers().keep(h.muts);
    }
    team.buffers().keep(work.into_mutables());
    report.issued_sample_steps = Some(lane_steps);
    report.active = active;
    report.done = active == 0;
    report.stop = stop.unwrap_or(if active == 0 {
        Stop::Done
    } else {
        Stop::MaxSteps
    });
    report
}

/// Where samples wait in the caller's order once compaction moved them out of the work set.
struct Home<R> {
    muts: Vec<Vec<R>>,
    terminated: Vec<u8>,
}

impl<R: HostReal> Home<R> {
    /// A copy of the caller's mutable planes (in buffers the team kept), nothing terminated.
    fn of(planes: &Bound<'_, R>, team: &HostTeam) -> Self {
        let mut kept = team.buffers();
        Home {
            muts: planes.muts.iter().map(|d| kept.copy_of(d)).collect(),
            terminated: vec![0; planes.n],
        }
    }
}
