//! One report for a split run: the parts' [`RunReport`]s merged, and each part's own.

use eagle_runtime::{RunReport, Stop};
use std::fmt;
use std::ops::Range;

/// What one part of a split run did: a device of a node, or an MPI rank.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
pub struct Part {
    /// `"device 0 (host)"`, `"device 1 (device)"`, `"rank 2"`.
    pub label: String,
    /// The samples it ran (of the whole ensemble, in the caller's order). With dynamic
    /// balance a rank runs several chunks: this is then `0..0` and [`Part::samples`] counts.
    pub range: Range<usize>,
    /// Samples it ran.
    pub samples: usize,
    /// Seconds it was busy running (its runs' wall time; a part with no samples: 0).
    pub time_s: f64,
    /// Its runs, merged: one run for a device; a rank's devices in parallel, its chunks in
    /// sequence (see [`merge_parallel`], [`merge_sequence`]).
    pub report: RunReport,
}

/// A split run's report: the parts' reports merged ([`merge_parallel`]) and each part's.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
pub struct Merged {
    /// The parts merged: counts summed, `launches`/`steps`/`launches_by_k` those of the
    /// longest part, `active_by_launch` summed launch by launch. See [`merge_parallel`].
    pub report: RunReport,
    /// Each device's or rank's share, in order.
    pub parts: Vec<Part>,
    /// Wall time of the whole run on this process, in seconds (with MPI: on the root,
    /// from the first check to the last result gathered).
    pub wall_s: f64,
    /// Seconds the root spent moving planes to and from other ranks (0 without MPI, and
    /// with distributed planes).
    pub comm_s: f64,
}

impl Merged {
    /// Parts' busy times, slowest over mean: 1.0 is perfect balance; with `p` parts the most
    /// is `p` (one part did all the work). 1.0 for a single part or no work at all.
    pub fn imbalance(&self) -> f64 {
        imbalance(self.parts.iter().map(|p| p.time_s))
    }

    /// Each part's measured throughput (samples per second busy), usable as the weights of
    /// the next split of a similar ensemble ([`crate::Fleet::with_weights`]); a part that
    /// ran nothing gets the mean of the others (1.0 when none ran).
    pub fn throughputs(&self) -> Vec<f64> {
        let rates: Vec<Option<f64>> = self
            .parts
            .iter()
            .map(|p| (p.samples > 0 && p.time_s > 0.0).then(|| p.samples as f64 / p.time_s))
            .collect();
        let known: Vec<f64> = rates.iter().flatten().copied().collect();
        let mean = if known.is_empty() {
            1.0
        } else {
            known.iter().sum::<f64>() / known.len() as f64
        };
        rates.into_iter().map(|r| r.unwrap_or(mean)).collect()
    }
}

/// Slowest over mean of busy times (1.0 when nothing was busy).
pub(crate) fn imbalance(times: impl Iterator<Item = f64>) -> f64 {
    let times: Vec<f64> = times.collect();
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let max = times.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 { max / mean } else { 1.0 }
}

impl fmt::Display for Merged {
    /// The seed's two lines (the merged report), then one line with the parts and the
    /// imbalance: `devices: 2, imbalance: 1.03` or `ranks: 2, imbalance: 1.03`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.report)?;
        let what = if self.parts.iter().all(|p| p.label.starts_with("rank")) {
            "ranks"
        } else {
            "devices"
        };
        write!(
            f,
            "{what}: {}, imbalance: {:.2}",
            self.parts.len(),
            self.imbalance()
        )
    }
}

/// The report of runs that ran side by side, each over its own samples (the devices of a
/// node, the ranks of a job), as if one run had covered them all:
///
/// - summed: `samples`, `active`, `finished`, `capped`, `failed`, `compactions`,
///   `reorders`, `issued_bytes`, `issued_sample_steps` (when every part counts them),
///   `graphs_built`, `graph_replays`;
/// - `launches`, `steps`, `launches_by_k`: the longest part's (most steps, then most
///   launches): the launch rounds the ensemble took. They equal one process's whenever
///   every part takes the same k sequence as one process would: `Steps::Fixed`, or
///   `Steps::Auto` when a sample of every part finishes in the launch where one process's
///   first sample would (the seed's oscillator: all samples end together);
/// - `active_by_launch`, `slots_by_launch`: summed launch by launch (a part that stopped
///   adds 0);
/// - `stop` (and so `done()`): `Done` when every part is done, else the most telling of
///   the parts' stops (cancelled and time limit before `MaxSteps`);
/// - `build_s`, `startup_s`: the largest (they overlap); `startup`, `lanes`, `arm`,
///   `compaction_strategy`: the first part's that has one, `team` the first part's;
///   `notes`: every part's, once.
pub fn merge_parallel(reports: &[&RunReport]) -> RunReport {
    let mut out = merge_common(reports);
    let longest = reports
        .iter()
        .max_by_key(|r| (r.steps, r.launches))
        .copied();
    if let Some(l) = longest {
        out.launches = l.launches;
        out.steps = l.steps;
        out.launches_by_k = l.launches_by_k.clone();
    }
    let rounds = reports
        .iter()
        .map(|r| r.active_by_launch.len())
        .max()
        .unwrap_or(0);
    out.active_by_launch = (0..rounds)
        .map(|i| {
            reports
                .iter()
                .filter_map(|r| r.active_by_launch.get(i))
                .sum()
        })
        .collect();
    let rounds = reports
        .iter()
        .map(|r| r.slots_by_launch.len())
        .max()
        .unwrap_or(0);
    out.slots_by_launch = (0..rounds)
        .map(|i| {
            reports
                .iter()
                .filter_map(|r| r.slots_by_launch.get(i))
                .sum()
        })
        .collect();
    out.build_s = reports.iter().map(|r| r.build_s).fold(0.0, f64::max);
    out.startup_s = reports.iter().map(|r| r.startup_s).fold(0.0, f64::max);
    out
}

/// The report of runs that ran one after another over disjoint samples (a rank's chunks
/// under dynamic balance): counts summed as in [`merge_parallel`], and also `launches`,
/// `steps`, `launches_by_k`, `build_s` and `startup_s`; `active_by_launch` and
/// `slots_by_launch` are the runs' in sequence.
pub fn merge_sequence(reports: &[&RunReport]) -> RunReport {
    let mut out = merge_common(reports);
    for r in reports {
        out.launches += r.launches;
        out.steps += r.steps;
        for (k, c) in &r.launches_by_k {
            *out.launches_by_k.entry(*k).or_default() += c;
        }
        out.active_by_launch.extend(&r.active_by_launch);
        out.slots_by_launch.extend(&r.slots_by_launch);
        out.build_s += r.build_s;
        out.startup_s += r.startup_s;
    }
    out
}

fn merge_common(reports: &[&RunReport]) -> RunReport {
    let mut out = RunReport::default();
    out.issued_sample_steps = (!reports.is_empty()).then_some(0);
    out.startup = reports.iter().find_map(|r| r.startup);
    out.team = reports.first().map_or_else(Default::default, |r| r.team);
    out.arm = reports.iter().find_map(|r| r.arm);
    out.compaction_strategy = reports.iter().find_map(|r| r.compaction_strategy);
    out.lanes = reports.iter().find_map(|r| r.lanes);
    for r in reports {
        out.samples += r.samples;
        out.active += r.active;
        out.finished += r.finished;
        out.capped += r.capped;
        out.failed += r.failed;
        out.compactions += r.compactions;
        out.reorders += r.reorders;
        out.tuning_launches += r.tuning_launches;
        out.issued_bytes += r.issued_bytes;
        out.issued_sample_steps = match (out.issued_sample_steps, r.issued_sample_steps) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        out.graphs_built += r.graphs_built;
        out.graph_replays += r.graph_replays;
        for note in &r.notes {
            if !out.notes.contains(note) {
                out.notes.push(note.clone());
            }
        }
    }
    // `done()` follows: every part done.
    let severity = |s: Stop| match s {
        Stop::Cancelled | Stop::TimeLimit => 2,
        Stop::MaxSteps => 1,
        Stop::Done => 0,
    };
    out.stop = reports
        .iter()
        .map(|r| r.stop)
        .max_by_key(|s| severity(*s))
        .unwrap_or_default();
    out
}

/// The report of a part that ran nothing (its range was empty): done, no launches.
pub(crate) fn empty_report() -> RunReport {
    RunReport::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(launches: &[(u32, u64)], active: &[usize], samples: usize) -> RunReport {
        let mut r = RunReport::default();
        r.launches = launches.iter().map(|l| l.1).sum();
        r.steps = launches.iter().map(|(k, c)| u64::from(*k) * c).sum();
        r.launches_by_k = launches.iter().copied().collect();
        r.active_by_launch = active.to_vec();
        r.slots_by_launch = active.to_vec();
        r.samples = samples;
        r.finished = samples;
        r.issued_sample_steps = Some(10);
        r
    }

    #[test]
    fn parallel_parts_keep_the_longest_parts_launches_and_sum_the_rest() {
        let a = run(&[(64, 2), (16, 3)], &[5, 3, 2, 1, 0], 5);
        let b = run(&[(64, 2)], &[4, 0], 4);
        let m = merge_parallel(&[&a, &b]);
        assert_eq!((m.launches, m.steps), (5, 176));
        assert_eq!(m.launches_by_k, a.launches_by_k);
        assert_eq!(m.active_by_launch, [9, 3, 2, 1, 0]);
        assert_eq!((m.samples, m.finished, m.active), (9, 9, 0));
        assert_eq!(m.issued_sample_steps, Some(20));
        assert!(m.done());
        // A part that did nothing changes nothing.
        let e = empty_report();
        assert_eq!(merge_parallel(&[&a, &e]).launches_by_k, a.launches_by_k);
        assert!(merge_parallel(&[&a, &e]).done());
        // Stopped at the cap: not done, MaxSteps.
        let mut c = b.clone();
        c.stop = Stop::MaxSteps;
        let m = merge_parallel(&[&a, &c]);
        assert!(!m.done());
        assert_eq!(m.stop, Stop::MaxSteps);
    }

    #[test]
    fn sequential_chunks_add_up() {
        let a = run(&[(64, 2)], &[5, 0], 5);
        let b = run(&[(64, 1), (16, 1)], &[4, 0], 4);
        let m = merge_sequence(&[&a, &b]);
        assert_eq!((m.launches, m.steps), (4, 208));
        assert_eq!(m.launches_by_k, [(16, 1), (64, 3)].into_iter().collect());
        assert_eq!(m.active_by_launch, [5, 0, 4, 0]);
        assert_eq!(m.samples, 9);
    }

    #[test]
    fn imbalance_is_slowest_over_mean() {
        assert_eq!(imbalance([1.0, 1.0].into_iter()), 1.0);
        assert_eq!(imbalance([3.0, 1.0].into_iter()), 1.5);
        assert_eq!(imbalance([2.0, 0.0, 0.0].into_iter()), 3.0);
        assert_eq!(imbalance([0.0].into_iter()), 1.0);
    }
}
