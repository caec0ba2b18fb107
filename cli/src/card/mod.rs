//! The performance card: per workload, every team x arm, by time and by two yardsticks,
//! useful FLOP/s (only the steps of samples still running) and issued bytes/s (what the
//! arm's passes really move), each also as a fraction of the team's own peak.
//!
//! `cargo card` (`cargo bench -p eagle-cli --features card --bench card`) writes
//! `target/card/card.md`, `card.json`, `card.svg` and `slots.svg`; the `card` binary runs
//! one workload on one arm from the command line (for profilers).

mod ensemble;
mod figures;
mod lifetimes;
mod workloads;

pub use ensemble::Ensemble;
pub use lifetimes::Lifetimes;
pub use workloads::{Case, Deploy, MAX_STEPS, WithEnsemble, Workload};

use eagle::RunReport;
use hawk_host::peak;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One way to run a workload, compared on the card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Arm {
    /// Host team, default options (compaction `Auto`).
    Host,
    /// Host team, compaction off.
    HostNoCompaction,
    /// Host team, compaction after every launch that finished a sample.
    HostCompactAlways,
    /// Host team, samples sorted by the workload's key plane first.
    HostReorder,
    /// The baseline: rayon over samples, each integrated to completion with scalars.
    RayonScalar,
    /// Device team, host-driven launch loop, index-list compaction.
    DeviceSimulate,
    /// Device team, each launch a replayed CUDA graph, index-list compaction.
    DeviceGraph,
    /// Device team, the whole loop as one graph with a WHILE node.
    DeviceGraphWhile,
    /// Device team, replayed graphs, compaction by gathering into dense planes.
    DeviceGraphGather,
}

impl Arm {
    /// Every arm that runs without a GPU.
    pub const HOST: [Arm; 5] = [
        Arm::Host,
        Arm::HostNoCompaction,
        Arm::HostCompactAlways,
        Arm::HostReorder,
        Arm::RayonScalar,
    ];

    /// Every arm that needs a GPU (on the card when `eagle::device_props()` finds one).
    pub const DEVICE: [Arm; 4] = [
        Arm::DeviceSimulate,
        Arm::DeviceGraph,
        Arm::DeviceGraphWhile,
        Arm::DeviceGraphGather,
    ];

    /// The arm's name on the card and the command line.
    pub fn name(self) -> &'static str {
        match self {
            Arm::DeviceSimulate => "device-simulate",
            Arm::DeviceGraph => "device-graph",
            Arm::DeviceGraphWhile => "device-graph-while",
            Arm::DeviceGraphGather => "device-graph-gather",
            Arm::Host => "host",
            Arm::HostNoCompaction => "host-no-compaction",
            Arm::HostCompactAlways => "host-compact-always",
            Arm::HostReorder => "host-reorder",
            Arm::RayonScalar => "rayon-scalar",
        }
    }

    /// Parses a name from [`Arm::name`].
    pub fn parse(s: &str) -> Option<Arm> {
        Arm::HOST
            .into_iter()
            .chain(Arm::DEVICE)
            .find(|a| a.name() == s)
    }

    /// The team the arm runs on.
    pub fn team(self) -> &'static str {
        if Arm::DEVICE.contains(&self) {
            "device"
        } else {
            "host"
        }
    }
}

/// One line of the card.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Workload name.
    pub workload: &'static str,
    /// Team name.
    pub team: &'static str,
    /// Arm name.
    pub arm: &'static str,
    /// Samples.
    pub n: usize,
    /// Element type.
    pub real: &'static str,
    /// Median wall time of one run, in ms.
    pub time_ms: f64,
    /// Launches of one run (0 for the baseline, which has none).
    pub launches: u64,
    /// Steps the run advanced (sum of k over launches).
    pub steps: u64,
    /// Compactions of one run.
    pub compactions: u64,
    /// FLOPs per sample step, counted from the kernel.
    pub flops_per_step: u64,
    /// Steps samples really took, summed (the useful work).
    pub useful_sample_steps: u64,
    /// How long samples live, and the most compaction can gain on this arm's lane groups.
    pub lifetimes: Lifetimes,
    /// Useful GFLOP/s.
    pub useful_gflops: f64,
    /// Useful FLOP/s as % of the team's peak for the element type.
    pub flops_pct_of_peak: f64,
    /// Issued GB/s (None for the baseline: its traffic is not tracked).
    pub issued_gbs: Option<f64>,
    /// Issued bytes/s as % of the team's memory bandwidth.
    pub bytes_pct_of_peak: Option<f64>,
    /// Largest relative difference of any final state from the baseline's.
    pub max_rel_diff_vs_baseline: f64,
    /// A contracted workload's rows: the largest relative difference of its results from
    /// its plain workload's ([`Workload::plain`]); `None` for other workloads.
    pub vs_plain_max_rel_diff: Option<f64>,
    /// Sample steps the arm issued over the useful ones (host team: finished lanes of
    /// running lane groups count as issued; `None` where it is not counted).
    pub issued_per_useful_step: Option<f64>,
    /// The host team's instruction set, lanes per group and where that width came from
    /// (`lanes: auto` probes, the tuning cache, or forced); `None` elsewhere.
    pub shape: Option<String>,
    /// Host threads the row ran on (`None` on the device).
    pub threads: Option<usize>,
    /// The row measured above the FMA peak even after measuring the peak again: the peak
    /// is under-measured (a busy machine) and the row's % is capped at 100.
    pub peak_under_measured: bool,
    /// Host team rows: the kernel's ceiling on this CPU, as % of the FMA peak: the issued
    /// FLOP/s of the same kernel at the same shape over a slice of the ensemble that stays
    /// in cache (its instruction mix and dependency chains on the FP pipes, memory out of
    /// the way). A kernel of adds, compares and selects besides its FMAs sits well below
    /// 100% there, and so does every row of it.
    pub ceiling_pct_of_peak: Option<f64>,
    /// The row's issued FLOP/s (finished lanes of running groups included) as % of that
    /// ceiling: near 100, the row runs as fast as its instructions allow.
    pub pct_of_ceiling: Option<f64>,
    /// What bounds the row: `"FP pipes"` when its issued FLOPs at the ceiling's rate take
    /// longer than its issued bytes at the STREAM triad's, else `"memory"`.
    pub bound: Option<&'static str>,
    /// Active samples after each launch (the compaction story).
    pub active_by_launch: Vec<usize>,
    /// Slots each launch passed over (finished samples not yet compacted away included).
    pub slots_by_launch: Vec<usize>,
    /// Untimed runs before the timed ones: the card binary warms up until a run measures
    /// no launch shape (`lanes: auto` settled, [`RunReport::tuning_launches`]); `None`
    /// where criterion's warm-up time does it (`cargo bench`).
    pub warmup_runs: Option<usize>,
}

impl Row {
    /// A row from a measured median time and the run's report.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        w: Workload,
        arm: Arm,
        n: usize,
        real: &'static str,
        median_s: f64,
        flops_per_step: u64,
        lifetimes: Lifetimes,
        report: Option<&RunReport>,
        max_rel_diff_vs_baseline: f64,
        threads: Option<usize>,
        ceiling: Option<f64>,
    ) -> Row {
        let elem_bytes = if real == "f32" { 4 } else { 8 };
        let useful_sample_steps = lifetimes.total;
        let useful = (flops_per_step * useful_sample_steps) as f64 / median_s;
        let (fp_peak, bw_peak) = match eagle::device_props() {
            Ok(p) if arm.team() == "device" => (
                if real == "f32" {
                    p.fp32_flops
                } else {
                    p.fp64_flops
                },
                p.memory_bandwidth,
            ),
            // A host row (or its ceiling) above the measured peak means the peak read low:
            // measure it again.
            _ => (
                peak::raise_fma_peak(
                    elem_bytes,
                    threads.unwrap_or_else(rayon::current_num_threads),
                    useful.max(ceiling.unwrap_or(0.0)),
                ),
                peak::host_bandwidth(),
            ),
        };
        let peak_under_measured = useful > fp_peak;
        let issued = report.map(|r| r.issued_bytes as f64 / median_s);
        // The row's issued FLOP/s against its ceiling, and seconds at each bound.
        let issued_flops = report
            .and_then(|r| r.issued_sample_steps)
            .map(|s| (s * flops_per_step) as f64);
        let (pct_of_ceiling, bound) = match (ceiling, issued_flops, report) {
            (Some(c), Some(f), Some(r)) => {
                let compute_s = f / c;
                let memory_s = r.issued_bytes as f64 / bw_peak;
                (
                    Some(100.0 * f / median_s / c),
                    Some(if memory_s > compute_s {
                        "memory"
                    } else {
                        "FP pipes"
                    }),
                )
            }
            _ => (None, None),
        };
        Row {
            workload: w.name(),
            team: arm.team(),
            arm: arm.name(),
            n,
            real,
            time_ms: median_s * 1e3,
            launches: report.map_or(0, |r| r.launches),
            steps: report.map_or(0, |r| r.steps),
            compactions: report.map_or(0, |r| r.compactions),
            flops_per_step,
            useful_sample_steps,
            lifetimes,
            useful_gflops: useful / 1e9,
            flops_pct_of_peak: (100.0 * useful / fp_peak).min(100.0),
            issued_gbs: issued.map(|b| b / 1e9),
            bytes_pct_of_peak: issued.map(|b| 100.0 * b / bw_peak),
            max_rel_diff_vs_baseline,
            vs_plain_max_rel_diff: None,
            issued_per_useful_step: report
                .and_then(|r| r.issued_sample_steps)
                .map(|s| s as f64 / useful_sample_steps.max(1) as f64),
            shape: report.and_then(|r| r.lanes).map(|c| {
                format!(
                    "{} x{} ({})",
                    c.shape.isa.name(),
                    c.shape.lanes,
                    c.source.name()
                )
            }),
            threads,
            peak_under_measured,
            ceiling_pct_of_peak: ceiling.map(|c| (100.0 * c / fp_peak).min(100.0)),
            pct_of_ceiling,
            bound,
            active_by_launch: report.map_or_else(Vec::new, |r| r.active_by_launch.clone()),
            slots_by_launch: report.map_or_else(Vec::new, |r| r.slots_by_launch.clone()),
            warmup_runs: None,
        }
    }
}

/// The whole card: rows plus the peaks they are measured against.
#[derive(Clone, Debug, Serialize)]
pub struct Card {
    /// Host FP64 FMA peak, GFLOP/s (measured).
    pub host_fp64_peak_gflops: f64,
    /// Host memory bandwidth, GB/s (STREAM triad, measured).
    pub host_bandwidth_gbs: f64,
    /// Host threads.
    pub host_threads: usize,
    /// The GPU and its peaks (from `device_props()`), or why there is none.
    pub device: String,
    /// The rows.
    pub rows: Vec<Row>,
}

impl Card {
    /// A card over `rows`, with the host's peaks.
    pub fn new(rows: Vec<Row>) -> Card {
        Card {
            host_fp64_peak_gflops: peak::host_fp64_peak() / 1e9,
            host_bandwidth_gbs: peak::host_bandwidth() / 1e9,
            host_threads: rayon::current_num_threads(),
            device: match eagle::device_props() {
                Ok(p) => format!(
                    "{} ({} SMs): FP64 {:.1} TFLOP/s, FP32 {:.1} TFLOP/s, {:.0} GB/s (from \
                     device_props)",
                    p.name,
                    p.sm_count,
                    p.fp64_flops / 1e12,
                    p.fp32_flops / 1e12,
                    p.memory_bandwidth / 1e9
                ),
                Err(e) => format!("none ({e}); device arms are not on this card"),
            },
            rows,
        }
    }

    /// The card as a Markdown table (one per workload), with speed-ups over the baseline.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Performance card\n\nHost: {} ({}), {} threads, FMA peak {:.1} GFLOP/s FP64 and \
             {:.1} GFLOP/s FP32, STREAM triad {:.1} GB/s, all measured (a row that beats a \
             peak makes the card measure it again; the FMA peaks are remembered with `lanes: \
             auto`'s choices, the best any run on this CPU measured).\n\n\
             Bound (host rows): the kernel's ceiling is the issued FLOP/s of the same kernel at \
             the row's shape over a slice of the ensemble small enough to stay in cache (its \
             instructions on the FP pipes, memory out of the way), as % of the FMA peak; the \
             row's issued FLOP/s is then a % of that ceiling, and the row is bound by the FP \
             pipes unless its issued bytes at the triad's rate take longer.\n",
            hawk_host::tune::cpu_model(),
            hawk_host::Isa::detect().name(),
            self.host_threads,
            peak::host_fma_peak(8) / 1e9,
            peak::host_fma_peak(4) / 1e9,
            self.host_bandwidth_gbs
        );
        let _ = writeln!(s, "Device: {}\n", self.device);
        if cfg!(feature = "portable-loops") {
            // The test command's build: not the speeds the card is for.
            let _ = writeln!(
                s,
                "**Built with feature `portable-loops`: every host row ran the portable \
                 loops alone. Make the card with `cargo bench`.**\n"
            );
        }
        let mut workloads: Vec<&str> = self.rows.iter().map(|r| r.workload).collect();
        workloads.dedup();
        for w in workloads {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.workload == w).collect();
            let base = rows
                .iter()
                .find(|r| r.arm == Arm::RayonScalar.name())
                .map(|r| r.time_ms);
            let r0 = rows[0];
            let _ = writeln!(
                s,
                "## {w} (n = {}, {}, {} FLOPs/step, {} useful sample steps)\n",
                r0.n, r0.real, r0.flops_per_step, r0.useful_sample_steps
            );
            let l = &r0.lifetimes;
            let _ = writeln!(
                s,
                "Sample lifetimes: {} to {} steps, mean {:.1}. Without compaction each group of \
                 {} lanes steps as long as its longest sample: {:.2}x the useful steps, the \
                 most compaction can gain here.\n",
                l.min, l.max, l.mean, l.lanes, l.compaction_bound
            );
            if let (Some(plain), Some(d)) = (
                Workload::parse(w).and_then(Workload::plain),
                r0.vs_plain_max_rel_diff,
            ) {
                let _ = writeln!(
                    s,
                    "Contracted (`#[kernel(contract)]`): the kernel of `{}` with its \
                     multiply-adds fused. Its results differ from that kernel's by at most \
                     {d:.1e} (relative); every arm here gives its own baseline's bits.\n",
                    plain.name()
                );
            }
            let _ = writeln!(
                s,
                "| team | arm | ISA x lanes (source), threads | time (ms) | vs baseline | launches | \
                 steps | compactions | issued/useful steps | useful GFLOP/s | % FLOP peak | \
                 issued GB/s | % BW peak | bound: ceiling % of peak, row % of ceiling | \
                 max rel diff |"
            );
            let _ = writeln!(
                s,
                "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
            );
            for r in rows {
                let opt = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {:.2} | {}{:.1} | {} | {} | {} | {:.1e} |",
                    r.team,
                    r.arm,
                    match (&r.shape, r.threads) {
                        (Some(sh), Some(t)) => format!("{sh}, {t}"),
                        (None, Some(t)) => format!("{t} threads"),
                        _ => "-".to_owned(),
                    },
                    r.time_ms,
                    base.map_or("-".to_owned(), |b| format!("{:.2}x", b / r.time_ms)),
                    r.launches,
                    r.steps,
                    r.compactions,
                    r.issued_per_useful_step
                        .map_or("-".to_owned(), |v| format!("{v:.2}")),
                    r.useful_gflops,
                    if r.peak_under_measured {
                        "peak under-measured: >"
                    } else {
                        ""
                    },
                    r.flops_pct_of_peak,
                    opt(r.issued_gbs),
                    opt(r.bytes_pct_of_peak),
                    match (r.bound, r.ceiling_pct_of_peak, r.pct_of_ceiling) {
                        (Some(b), Some(c), Some(p)) => format!("{b}: {c:.0}%, {p:.0}%"),
                        _ => "-".to_owned(),
                    },
                    r.max_rel_diff_vs_baseline
                );
            }
            s.push('\n');
        }
        self.contracted_beside_plain(&mut s);
        s
    }

    /// The table of each contracted workload's host row beside its plain workload's: the
    /// ceilings, the rows' % of them, and how far apart the results are.
    fn contracted_beside_plain(&self, s: &mut String) {
        let host = |w: &str| {
            self.rows
                .iter()
                .find(|r| r.workload == w && r.arm == Arm::Host.name())
        };
        let pairs: Vec<(&Row, &Row)> = self
            .rows
            .iter()
            .filter(|r| r.arm == Arm::Host.name())
            .filter_map(|c| {
                let plain = Workload::parse(c.workload)?.plain()?;
                Some((host(plain.name())?, c))
            })
            .collect();
        if pairs.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "## Contracted kernels beside the plain ones (host arm)\n\n\
             | workload | plain: ceiling % of peak, row % of ceiling, ms | contracted: ceiling \
             % of peak, row % of ceiling, ms | ceiling ratio | speed-up (plain ms / contracted ms) | max rel diff |\n\
             |---|---|---|---:|---:|---:|"
        );
        let cell = |r: &Row| match (r.ceiling_pct_of_peak, r.pct_of_ceiling) {
            (Some(c), Some(p)) => format!("{c:.0}%, {p:.0}%, {:.2}", r.time_ms),
            _ => format!("-, -, {:.2}", r.time_ms),
        };
        for (p, c) in pairs {
            let ratio = match (c.ceiling_pct_of_peak, p.ceiling_pct_of_peak) {
                (Some(c), Some(p)) if p > 0.0 => format!("{:.2}x", c / p),
                _ => "-".to_owned(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {ratio} | {:.2}x | {:.1e} |",
                p.workload,
                cell(p),
                cell(c),
                p.time_ms / c.time_ms,
                c.vs_plain_max_rel_diff.unwrap_or(0.0)
            );
        }
        s.push('\n');
    }

    /// Writes `card.md`, `card.json`, `card.svg` (% of peak by row) and `slots.svg` (slots
    /// each launch passed over, by arm, for workloads whose samples finish at different
    /// steps) into `dir`; returns their paths.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, Box<dyn std::error::Error>> {
        std::fs::create_dir_all(dir)?;
        let (md, json, svg, slots) = (
            dir.join("card.md"),
            dir.join("card.json"),
            dir.join("card.svg"),
            dir.join("slots.svg"),
        );
        std::fs::write(&md, self.markdown())?;
        std::fs::write(&json, serde_json::to_string_pretty(self)?)?;
        figures::peak_bars(&self.rows, &svg)?;
        figures::slots_by_launch(&self.rows, &slots)?;
        Ok(vec![md, json, svg, slots])
    }
}
