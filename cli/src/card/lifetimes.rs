//! How long the samples of a workload live, and what that lets compaction gain.

use serde::Serialize;

/// Sample lifetimes in steps (from the baseline, which runs each sample to completion) and
/// the gain compaction can reach at most on lane groups of a given width.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lifetimes {
    /// Steps all samples took, summed (the useful work).
    pub total: u64,
    /// Fewest steps any sample took.
    pub min: u64,
    /// Mean steps per sample.
    pub mean: f64,
    /// Most steps any sample took.
    pub max: u64,
    /// Samples per lane group on the arm's team (SIMD lanes on the host, a warp on a GPU).
    pub lanes: usize,
    /// Lane-group steps without compaction (each group of `lanes` adjacent samples steps as
    /// long as its longest sample) over the useful steps: the most compaction can gain.
    pub compaction_bound: f64,
}

impl Lifetimes {
    /// Statistics of per-sample step counts `steps` (caller's order) on `lanes`-wide groups.
    pub fn new(steps: &[u64], lanes: usize) -> Lifetimes {
        let lanes = lanes.max(1);
        let useful: u64 = steps.iter().sum();
        let grouped: u64 = steps
            .chunks(lanes)
            .map(|g| g.iter().max().copied().unwrap_or(0) * g.len() as u64)
            .sum();
        Lifetimes {
            total: useful,
            min: steps.iter().min().copied().unwrap_or(0),
            mean: useful as f64 / steps.len().max(1) as f64,
            max: steps.iter().max().copied().unwrap_or(0),
            lanes,
            compaction_bound: if useful == 0 {
                1.0
            } else {
                grouped as f64 / useful as f64
            },
        }
    }
}
