//! The host team's launch loop: work on a copy, launch, compact, reorder, write home.

use crate::control::Control;
use crate::options::Plan;
use crate::planes::Bound;
use crate::report::{RunReport, Stop};
use hawk::{Kernel, Role};
use hawk_host::{HostReal, HostTeam, WorkSet};

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
    let mut work = WorkSet::new(
        p.ins.iter().map(|d| d.to_vec()).collect(),
        p.params.clone(),
        p.muts.iter().map(|d| d.to_vec()).collect(),
    )
    .with_status(status);
    let issued = IssuedBytes::of::<K>();
    let mut report = RunReport {
        samples: p.n,
        team: "host",
        arm: "host",
        ..RunReport::default()
    };
    if let Some(j) = plan.reorder_key {
        let key = per_sample_plane::<K>(p, j);
        let mut order: Vec<usize> = (0..p.n).collect();
        order.sort_by(|&a, &b| {
            key[a]
                .partial_cmp(&key[b])
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        work.permute(&order);
        report.reorders += 1;
        report.issued_bytes += issued.compaction(p.n);
    }
    // Samples compacted away wait here, in the caller's order, until the run ends.
    let mut home: Option<Home<K::Real>> = None;
    let mut active = work.active();
    let mut steps = steps_before;
    let mut stop = None;
    while active > 0 && steps < plan.max_steps {
        if let Some(why) = ctl.should_stop(report.launches) {
            stop = Some(why);
            break;
        }
        let k = plan.next_k(plan.max_steps - steps, active < p.n);
        report.slots_by_launch.push(work.len());
        let stats = team.launch::<K>(&mut work, k);
        active = stats.active;
        report.issued_bytes += issued.launch(work.len(), stats.loaded);
        report.launches += 1;
        report.steps += u64::from(k);
        steps += u64::from(k);
        *report.launches_by_k.entry(k).or_default() += 1;
        report.active_by_launch.push(active);
        ctl.progress(steps, active, report.launches);
        if active > 0 && plan.compaction.due(work.len(), active) {
            let h = home.get_or_insert_with(|| Home::of(planes));
            let before = work.len();
            team.install(|| work.compact(&mut h.muts, &mut h.terminated));
            report.issued_bytes += issued.compaction(before);
            report.compactions += 1;
        }
    }
    // Write every sample home, then into the caller's planes in one pass.
    if work.in_caller_order() {
        for (j, dst) in planes.muts.iter_mut().enumerate() {
            dst.copy_from_slice(work.mutable(j));
        }
        status.copy_from_slice(work.terminated());
    } else {
        let mut h = home.unwrap_or_else(|| Home::of(planes));
        work.scatter(&mut h.muts, &mut h.terminated);
        for (dst, src) in planes.muts.iter_mut().zip(&h.muts) {
            dst.copy_from_slice(src);
        }
        status.copy_from_slice(&h.terminated);
    }
    report.active = active;
    report.done = active == 0;
    report.stop = stop.unwrap_or(if active == 0 {
        Stop::Done
    } else {
        Stop::MaxSteps
    });
    report
}

/// Bytes the host team's passes move, per slot, for kernel planes of one element size.
struct IssuedBytes {
    /// Input planes' bytes per slot.
    ins: u64,
    /// Mutable planes' bytes per slot.
    muts: u64,
}

impl IssuedBytes {
    fn of<K: Kernel>() -> Self {
        let b = std::mem::size_of::<K::Real>() as u64;
        IssuedBytes {
            ins: K::count(Role::In) as u64 * b,
            muts: K::count(Role::Mut) as u64 * b,
        }
    }
    /// A launch reads every slot's flag; loaded slots read inputs, read and write state
    /// and write their flag.
    fn launch(&self, slots: usize, loaded: usize) -> u64 {
        slots as u64 + loaded as u64 * (self.ins + 2 * self.muts + 1)
    }
    /// A compaction (or reorder) pass reads every slot (planes, flag, id) and writes the
    /// kept ones to dense planes and the others home.
    fn compaction(&self, before: usize) -> u64 {
        let per_slot = self.ins + self.muts + 1 + 8;
        2 * before as u64 * per_slot
    }
}

/// Where samples wait in the caller's order once compaction moved them out of the work set.
struct Home<R> {
    muts: Vec<Vec<R>>,
    terminated: Vec<u8>,
}

impl<R: Copy> Home<R> {
    /// A copy of the caller's mutable planes, nothing terminated.
    fn of(planes: &Bound<'_, R>) -> Self {
        Home {
            muts: planes.muts.iter().map(|d| d.to_vec()).collect(),
            terminated: vec![0; planes.n],
        }
    }
}

/// The `j`-th per-sample plane (inputs and mutables, in the kernel's declaration order).
fn per_sample_plane<'b, K: Kernel>(p: &'b Bound<'_, K::Real>, j: usize) -> &'b [K::Real] {
    let spec = K::PLANES.iter().filter(|s| s.role != Role::Param).nth(j);
    let spec = spec.expect("index from K::PLANES");
    let nth_of = |role: Role| {
        K::PLANES
            .iter()
            .filter(|s| s.role == role)
            .position(|s| s.name == spec.name)
            .expect("plane is in its role list")
    };
    match spec.role {
        Role::In => p.ins[nth_of(Role::In)],
        _ => p.muts[nth_of(Role::Mut)],
    }
}
