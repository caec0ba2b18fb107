//! The host team's launch loop: work on a copy, launch, compact, reorder, write home.

use crate::options::Plan;
use crate::planes::Bound;
use crate::report::RunReport;
use hawk::{Kernel, Role};
use hawk_host::{HostReal, HostTeam, WorkSet};

/// Runs the launch loop on the host team; writes the caller's planes and `terminated` once,
/// at the end.
pub(crate) fn run_host<K: Kernel>(
    team: &HostTeam,
    plan: &Plan,
    planes: &mut Bound<'_, K::Real>,
    terminated: &mut [bool],
) -> RunReport
where
    K::Real: HostReal,
{
    let p = &*planes;
    let mut work = WorkSet::new(
        p.ins.iter().map(|d| d.to_vec()).collect(),
        p.params.clone(),
        p.muts.iter().map(|d| d.to_vec()).collect(),
    );
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
    }
    // Samples compacted away wait here, in the caller's order, until the run ends.
    let mut home: Option<Home<K::Real>> = None;
    let mut active = p.n;
    while active > 0 && report.steps < plan.max_steps {
        let k = plan.next_k(plan.max_steps - report.steps);
        report.slots_by_launch.push(work.len());
        active = team.launch::<K>(&mut work, k);
        report.launches += 1;
        report.steps += u64::from(k);
        *report.launches_by_k.entry(k).or_default() += 1;
        report.active_by_launch.push(active);
        if active > 0 && plan.compaction.due(work.len(), active) {
            let h = home.get_or_insert_with(|| Home::of(planes));
            team.install(|| work.compact(&mut h.muts, &mut h.terminated));
            report.compactions += 1;
        }
    }
    // Write every sample home, then into the caller's planes in one pass.
    if work.in_caller_order() {
        for (j, dst) in planes.muts.iter_mut().enumerate() {
            dst.copy_from_slice(work.mutable(j));
        }
        for (d, &s) in terminated.iter_mut().zip(work.terminated()) {
            *d = s != 0;
        }
    } else {
        let mut h = home.unwrap_or_else(|| Home::of(planes));
        work.scatter(&mut h.muts, &mut h.terminated);
        for (dst, src) in planes.muts.iter_mut().zip(&h.muts) {
            dst.copy_from_slice(src);
        }
        for (d, &s) in terminated.iter_mut().zip(&h.terminated) {
            *d = s != 0;
        }
    }
    report.active = active;
    report.done = active == 0;
    report
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
