//! `RunReport`: what one `run()` did.

use crate::device::ModuleSource;
use crate::options::{Arm, DeviceCompaction};
use std::collections::BTreeMap;
use std::fmt;

/// What one `Runner::run` did: launches, steps, time by phase, bytes moved and where the
/// module came from (the fields `cargo run --release`'s "Profile your run" page prints).
///
/// ```
/// use hawk::builtin::{Oscillator, OscillatorPlanes};
/// use eagle_runtime::{Stop, Target, TeamKind};
/// let omega = vec![1.0; 64];
/// let (mut x, mut v, mut t) = (vec![1.0; 64], vec![0.0; 64], vec![0.0; 64]);
/// let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
/// let host = Target::Host(Default::default());
/// let deployed = eagle_runtime::deploy(Oscillator, host, None).unwrap();
/// let report = eagle_runtime::until_done(&deployed, 10_000, planes).unwrap().run().unwrap();
/// assert_eq!(report.team, TeamKind::Host);
/// assert_eq!(report.arm, None); // arms are the device team's
/// assert!(report.done());
/// assert_eq!(report.stop, Stop::Done);
/// assert_eq!(report.launches_by_k.values().sum::<u64>(), report.launches);
/// assert_eq!(report.finished, 64);
/// println!("{report}"); // launches: .., steps: .., launches_by_k: {..} / done: true
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct RunReport {
    /// One-time build cost paid by this run, in seconds: graph capture on the device, 0 on
    /// the host team (nothing to build) and 0 on a later run that reuses the build.
    pub build_s: f64,
    /// How the team's module was obtained, on a runner's first run only (`None` on later
    /// runs): the built-in cubin, a cache hit (warm), a JIT (cold), or `Host`.
    pub startup: Option<ModuleSource>,
    /// Seconds the team's start-up took (module JIT or load), on a runner's first run only
    /// (0 on later runs and on the host team). Paid at deploy, before this run.
    pub startup_s: f64,
    /// Kernel launches (each advances every active sample up to k steps).
    pub launches: u64,
    /// Steps the run advanced: the sum of k over launches (a sample stops at its own step).
    pub steps: u64,
    /// How many launches used each k, e.g. `{64: 16}`.
    pub launches_by_k: BTreeMap<u32, u64>,
    /// Times finished samples were moved out of the active set.
    pub compactions: u64,
    /// Times active samples were permuted by the reorder key.
    pub reorders: u64,
    /// Samples in the ensemble.
    pub samples: usize,
    /// Samples still running when the run stopped (0 when `done`).
    pub active: usize,
    /// Active samples after each launch, in launch order.
    pub active_by_launch: Vec<usize>,
    /// Slots each launch passed over (the active set's size before the launch).
    pub slots_by_launch: Vec<usize>,
    /// Bytes the run's passes read and wrote (launches, including passes over finished
    /// samples, and compaction or reorder passes); the card's "issued bytes".
    pub issued_bytes: u64,
    /// Sample steps the run issued: on the host team each lane group's steps times its width
    /// (finished lanes of running groups included). `None` on the device team, which does
    /// not count them.
    pub issued_sample_steps: Option<u64>,
    /// The host team's launch shape (ISA and lanes) at the end of the run, and where it came
    /// from: forced, measured by probes in this run (`lanes: auto`), by an earlier run, or
    /// read from the tuning cache. `None` on the device team.
    pub lanes: Option<hawk_host::ShapeChoice>,
    /// Launches of this run that measured launch shapes (`lanes: auto`'s probes, finalists
    /// and checks; each one does its full share of useful work). 0 once the shape is
    /// settled, and always with a forced width or on the device team.
    pub tuning_launches: u64,
    /// The team it ran on.
    pub team: TeamKind,
    /// The device arm that ran (after any fallback); `None` on the host team.
    pub arm: Option<Arm>,
    /// The device compaction strategy; `None` on the host team.
    pub compaction_strategy: Option<DeviceCompaction>,
    /// Graphs captured by this run (0 when every graph was replayed from an earlier run).
    pub graphs_built: u64,
    /// Graph replays in this run.
    pub graph_replays: u64,
    /// Notes on how the run deviated from what was asked (e.g. an arm's fallback).
    pub notes: Vec<String>,
    /// Why the run stopped.
    pub stop: Stop,
    /// Samples the kernel terminated (this run or before it).
    pub finished: usize,
    /// Samples still running when the step cap (`max_steps`) was reached.
    pub capped: usize,
    /// Samples that failed: their state became NaN or infinite, or the kernel flagged them
    /// (`&mut Failed`). Each keeps its state from before the failing step.
    pub failed: usize,
}

impl RunReport {
    /// `true` when every sample terminated (finished or failed): [`Stop::Done`].
    pub fn done(&self) -> bool {
        self.stop == Stop::Done
    }
}

/// The kind of team a run ran on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TeamKind {
    /// CPU threads and SIMD lanes.
    #[default]
    Host,
    /// A device (a CUDA GPU or the emulated device).
    Device,
}

impl fmt::Display for TeamKind {
    /// `host` or `device`, as the profile page prints it (`running on host`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TeamKind::Host => "host",
            TeamKind::Device => "device",
        })
    }
}

/// Why a run stopped. Every stop is at a launch boundary, with every plane consistent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Stop {
    /// Every sample finished or failed.
    #[default]
    Done,
    /// `max_steps` steps were taken with samples still running (they are `Capped`).
    MaxSteps,
    /// A [`crate::CancelHandle`] asked it to stop; `Runner::resume` continues it.
    Cancelled,
    /// The wall-time limit (`Options::time_limit`) ran out; `Runner::resume` continues it.
    TimeLimit,
}

/// What became of one sample, in the caller's order (`Runner::status`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Status {
    /// Not run yet, or the run stopped early (cancelled, time limit) with it still running.
    #[default]
    Active,
    /// The kernel set its `terminated` flag.
    Finished,
    /// Still running when `max_steps` was reached.
    Capped,
    /// Its state became NaN or infinite, or the kernel flagged it failed; it keeps its last
    /// finite state (the one before the failing step).
    Failed,
}

impl fmt::Display for RunReport {
    /// Two lines: `launches: 16, steps: 1024, launches_by_k: {64: 16}` (launches per k, k
    /// ascending) and `done: true`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "launches: {}, steps: {}, launches_by_k: {{",
            self.launches, self.steps
        )?;
        for (i, (k, n)) in self.launches_by_k.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{k}: {n}")?;
        }
        writeln!(f, "}}")?;
        write!(f, "done: {}", self.done())
    }
}

#[cfg(test)]
mod tests {
    use super::{RunReport, Stop};

    #[test]
    fn display_lists_launches_per_k_in_ascending_k() {
        let mut r = RunReport {
            launches: 3,
            steps: 100,
            stop: Stop::MaxSteps,
            ..RunReport::default()
        };
        assert_eq!(
            r.to_string(),
            "launches: 3, steps: 100, launches_by_k: {}\ndone: false"
        );
        r.launches_by_k.insert(64, 1);
        r.launches_by_k.insert(18, 2);
        r.stop = Stop::Done;
        assert_eq!(
            r.to_string(),
            "launches: 3, steps: 100, launches_by_k: {18: 2, 64: 1}\ndone: true"
        );
    }
}
