//! # hawk-host: the host team
//!
//! Runs any hawk [`Kernel`] over a [`WorkSet`] of planes: rayon threads take fixed chunks
//! of samples, each chunk is cut into SIMD lane groups, and each group is advanced `k`
//! steps with its state in registers ([`hawk::advance`]). The instruction set is picked at
//! run time (AVX-512, AVX2+FMA, or portable code), and so is the lane width.
//!
//! Results never depend on the thread count, the chunk size or the lane width: every
//! sample is computed by the same IEEE operations in the same order.
#![feature(portable_simd)]

pub mod buffers;
pub mod count;
mod dispatch;
pub mod peak;
#[doc(hidden)]
pub mod private_fs;
pub mod tune;
pub mod workbuf;
mod workset;

pub use dispatch::{HostReal, Isa};
pub use hawk::host::{LANE_WIDTHS, LaunchStats, portable_width};
pub use tune::{LaunchPlan, ProbeTiming, Shape, ShapeChoice, ShapeSource, TuneKey, Tuner};
pub use workbuf::{AllocError, WorkBuf};
pub use workset::WorkSet;

use hawk::Kernel;
use hawk::save::SaveTarget;
use rayon::prelude::*;
use std::sync::{Arc, Mutex, MutexGuard};

pub use buffers::Buffers;

/// Most samples per rayon task (before [`chunk_size`] rounds it up to a multiple of the
/// lane width, so only the last task has a scalar tail).
pub const CHUNK: usize = 1024;

/// The stack of each host-team thread: 16 MiB (reserved, touched only as used). A kernel
/// step compiled without optimization (a `cargo test` in debug) keeps every temporary of
/// its inlined body in a stack slot of its own; for a 64-lane group of a stochastic
/// problem that is megabytes, past the 2 MiB a thread gets by default.
pub const THREAD_STACK: usize = 16 << 20;

/// Gives rayon's global pool (a team without `threads`) [`THREAD_STACK`]-sized stacks,
/// once, if nothing started that pool yet; a global pool the program already set up is
/// kept as it is.
fn size_global_pool() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err only when the global pool already exists: it is kept.
        let _ = rayon::ThreadPoolBuilder::new()
            .stack_size(THREAD_STACK)
            .build_global();
    });
}

/// Rayon tasks per worker thread a launch aims for when the work set is small: once
/// compaction has shrunk the active set to a few chunks' worth, fixed-size chunks would
/// leave threads idle for the whole tail of a run.
const TASKS_PER_THREAD: usize = 4;

/// Samples per rayon task for `len` slots on `threads` threads with `lanes`-wide groups:
/// about [`CHUNK`], or less so every thread gets several tasks; always a multiple of `lanes`.
pub fn chunk_size(len: usize, threads: usize, lanes: usize) -> usize {
    let even = len.div_ceil(threads.max(1) * TASKS_PER_THREAD);
    even.clamp(1, CHUNK).next_multiple_of(lanes.max(1))
}

/// How a host team is set up. `Default` picks everything from the machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostConfig {
    /// Worker threads; `None` uses rayon's global pool (one per core).
    pub threads: Option<usize>,
    /// Samples per SIMD group (one of [`LANE_WIDTHS`]); `None` (`lanes: auto`) measures:
    /// see [`tune`].
    pub lanes: Option<usize>,
    /// Instruction set; `None` takes `$EAGLE_ISA` (`avx2`, `avx512`, `portable`) when set,
    /// else lets `lanes: auto` choose among the CPU's (the best one for a fixed width).
    pub isa: Option<Isa>,
}

/// The host team: CPU threads and SIMD lanes.
#[derive(Clone)]
pub struct HostTeam {
    pool: Option<Arc<rayon::ThreadPool>>,
    isa: Isa,
    /// The ISA was forced (config or `$EAGLE_ISA`): auto only varies the width.
    isa_forced: bool,
    lanes: Option<usize>,
    buffers: Arc<Mutex<Buffers>>,
    tuner: Arc<Tuner>,
}

/// What went wrong setting up a host team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The lane width is not one of [`LANE_WIDTHS`].
    Lanes(usize),
    /// The lane width is not compiled for the instruction set ([`Isa::lane_widths`]).
    LanesForIsa {
        /// The width asked for.
        lanes: usize,
        /// The instruction set the team runs.
        isa: Isa,
    },
    /// Zero threads were asked for.
    Threads,
    /// The instruction set is not available on this CPU.
    Isa(Isa),
    /// `$EAGLE_ISA` names no instruction set.
    IsaName(String),
    /// rayon could not build the pool.
    Pool(String),
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Lanes(w) => {
                let widths: Vec<String> = LANE_WIDTHS.iter().map(|w| w.to_string()).collect();
                write!(
                    f,
                    "lane width {w} is not supported (use one of {})",
                    widths.join(", ")
                )
            }
            HostError::LanesForIsa { lanes, isa } => {
                let widths: Vec<String> = isa.lane_widths().iter().map(|w| w.to_string()).collect();
                write!(
                    f,
                    "lane width {lanes} is not compiled for instruction set {} (use one of {}, \
                     or another instruction set)",
                    isa.name(),
                    widths.join(", ")
                )
            }
            HostError::Threads => write!(f, "threads must be at least 1"),
            HostError::Isa(i) => write!(
                f,
                "instruction set {} is not available on this CPU",
                i.name()
            ),
            HostError::IsaName(n) => write!(
                f,
                "EAGLE_ISA={n} names no instruction set (use avx512, avx2 or portable)"
            ),
            HostError::Pool(e) => write!(f, "could not start the host thread pool: {e}"),
        }
    }
}

impl std::error::Error for HostError {}

impl HostTeam {
    /// Sets up a host team; see [`HostConfig`].
    pub fn new(cfg: &HostConfig) -> Result<Self, HostError> {
        if let Some(w) = cfg.lanes
            && !LANE_WIDTHS.contains(&w)
        {
            return Err(HostError::Lanes(w));
        }
        let from_env = match std::env::var("EAGLE_ISA") {
            Ok(n) if !n.is_empty() => {
                Some(Isa::from_name(&n.to_ascii_lowercase()).ok_or(HostError::IsaName(n))?)
            }
            _ => None,
        };
        let forced = cfg.isa.or(from_env);
        let isa = match forced {
            Some(i) if !i.available() => return Err(HostError::Isa(i)),
            Some(i) => i,
            None => Isa::detect(),
        };
        if let Some(lanes) = cfg.lanes
            && !isa.lane_widths().contains(&lanes)
        {
            return Err(HostError::LanesForIsa { lanes, isa });
        }
        let pool = match cfg.threads {
            Some(0) => return Err(HostError::Threads),
            Some(t) => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .stack_size(THREAD_STACK)
                    .thread_name(|i| format!("eagle-host-{i}"))
                    .build()
                    .map_err(|e| HostError::Pool(e.to_string()))?,
            )),
            None => {
                size_global_pool();
                None
            }
        };
        Ok(Self {
            pool,
            isa,
            isa_forced: forced.is_some(),
            lanes: cfg.lanes,
            buffers: Arc::default(),
            tuner: Arc::default(),
        })
    }

    /// The same team remembering its `lanes: auto` choices in `dir` (the on-disk build
    /// cache's folder), so the next process starts tuned; `None`: in this process only.
    /// The first such team of a process also names the folder where the measured FMA
    /// peaks are remembered ([`peak::remember_in`]).
    pub fn with_tuning_dir(mut self, dir: Option<std::path::PathBuf>) -> Self {
        peak::remember_in(dir.clone());
        self.tuner = Arc::new(Tuner::new(dir));
        self
    }

    /// Notes not yet taken about this team's on-disk tuning and peaks: why an entry or
    /// its folder was not used (another user owns it, or group or others may write it;
    /// the team then measures again). Each reason is noted once.
    pub fn take_notes(&self) -> Vec<String> {
        let mut notes = self.tuner.take_notes();
        notes.extend(peak::take_notes());
        notes
    }

    /// The best instruction set this team may run (the one forced, else the CPU's best).
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// What the next launch of `K` runs: for a kernel with the portable loops alone
    /// (`host_loops = "portable"`), the portable loop at [`portable_width`] of the width
    /// forced (8 when none); else the width forced by [`HostConfig::lanes`], else
    /// the shape measured (by this team, or cached from an earlier process), else a probe
    /// of the candidates ([`HostTeam::launch_probe`]).
    pub fn next_launch<K: Kernel>(&self) -> LaunchPlan
    where
        K::Real: HostReal,
    {
        if const { matches!(K::HOST_LOOPS, hawk::HostLoops::Portable) } {
            // The kernel has the portable loops alone: nothing to measure.
            let wanted = self.lanes.unwrap_or(8);
            return LaunchPlan::Run(ShapeChoice {
                shape: Shape {
                    isa: Isa::Portable,
                    lanes: portable_width(wanted),
                },
                source: ShapeSource::Kernel,
            });
        }
        if let Some(lanes) = self.lanes {
            return LaunchPlan::Run(ShapeChoice {
                shape: Shape {
                    isa: self.isa,
                    lanes,
                },
                source: ShapeSource::Fixed,
            });
        }
        self.tuner
            .next(&self.tune_key::<K>(), || self.candidates::<K::Real>())
    }

    /// The shapes `lanes: auto` tries for element type `R` on this team.
    pub fn candidates<R: HostReal>(&self) -> Vec<Shape> {
        tune::candidates(self.isa, R::BYTES, self.isa_forced)
    }

    /// Records a measuring launch of `K` (its probe chunks or its whole-launch time; see
    /// [`Tuner::record`]); the decided shape when this launch finished the measurement.
    pub fn record_probe<K: Kernel>(&self, probe: &[ProbeTiming]) -> Option<ShapeChoice>
    where
        K::Real: HostReal,
    {
        self.tuner.record(&self.tune_key::<K>(), probe)
    }

    fn tune_key<K: Kernel>(&self) -> TuneKey
    where
        K::Real: HostReal,
    {
        let isas: Vec<&str> = self
            .candidates::<K::Real>()
            .iter()
            .map(|s| s.isa.name())
            .collect();
        let mut isas = isas;
        isas.dedup();
        TuneKey {
            kernel: K::NAME,
            elem: <K::Real as hawk::Real>::NAME,
            threads: self.threads(),
            isas: isas.join("+"),
        }
    }

    /// Worker threads this team runs on.
    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads())
    }

    /// Samples per SIMD group for element type `R` when the width is forced, else the
    /// width a fixed ISA starts from (`lanes: auto` measures: see [`HostTeam::next_launch`]).
    pub fn lanes<R: HostReal>(&self) -> usize {
        self.lanes.unwrap_or_else(|| self.isa.default_lanes::<R>())
    }

    /// Advances every active sample of `work` up to `k` steps with the team's forced or
    /// starting shape; see [`HostTeam::launch_shape`].
    pub fn launch<K: Kernel>(&self, work: &mut WorkSet<K::Real>, k: u32) -> LaunchStats
    where
        K::Real: HostReal,
    {
        let shape = Shape {
            isa: self.isa,
            lanes: self.lanes::<K::Real>(),
        };
        self.launch_shape::<K>(work, k, shape, SaveTarget::NONE)
    }

    /// Advances every active sample of `work` up to `k` steps in lane groups of `shape`;
    /// says how many are still active afterwards and how many slots had their state loaded.
    /// Every shape gives the same bits. The lane groups write the launch's save points
    /// into `save` as they go (`SaveTarget::NONE`: no saving, the loop without it).
    ///
    /// # Panics
    /// When `shape`'s ISA is not available here or its width is not one of the ISA's
    /// [`Isa::lane_widths`], or
    /// when `save` does not cover the work set's samples or `k` steps
    /// ([`SaveTarget::covers`]).
    pub fn launch_shape<K: Kernel>(
        &self,
        work: &mut WorkSet<K::Real>,
        k: u32,
        shape: Shape,
        save: SaveTarget<K::Real>,
    ) -> LaunchStats
    where
        K::Real: HostReal,
    {
        assert!(
            shape.isa.available() && shape.isa.lane_widths().contains(&shape.lanes),
            "{shape} cannot run here"
        );
        let lanes = shape.lanes;
        let run = dispatch::chunk_fn::<K>(shape.isa, lanes);
        let ptrs = work.ptrs(save, k);
        let view = ptrs.view();
        let len = work.len();
        let chunk = chunk_size(len, self.threads(), lanes);
        let body = || {
            (0..len.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(len));
                    // SAFETY: chunks are disjoint and inside the work set, whose planes all
                    // have its length (`WorkSet::new`); the ISA was checked above; `ptrs`
                    // checked that `save` covers the work set's samples (distinct, one per
                    // slot) and `k` steps.
                    unsafe { run(&view, lo, hi, k) }
                })
                .reduce(LaunchStats::default, std::ops::Add::add)
        };
        match &self.pool {
            Some(p) => p.install(body),
            None => body(),
        }
    }

    /// One launch whose chunks take `shapes` in turn, each chunk timed. A chunk takes
    /// the next shape when it starts, so chunks that run at the same time on different
    /// threads run different shapes and a shape's chunks are spread over the launch (a
    /// few milliseconds of noise slow one chunk of several shapes, not every chunk of
    /// one). Does the same work, with the same bits, as [`HostTeam::launch_shape`].
    ///
    /// # Panics
    /// As [`HostTeam::launch_shape`], for any of `shapes`; when `shapes` is empty.
    pub fn launch_probe<K: Kernel>(
        &self,
        work: &mut WorkSet<K::Real>,
        k: u32,
        shapes: &[Shape],
        save: SaveTarget<K::Real>,
    ) -> (LaunchStats, Vec<ProbeTiming>)
    where
        K::Real: HostReal,
    {
        assert!(!shapes.is_empty(), "a probe needs a shape");
        let runs: Vec<_> = shapes
            .iter()
            .map(|s| {
                assert!(
                    s.isa.available() && s.isa.lane_widths().contains(&s.lanes),
                    "{s} cannot run here"
                );
                dispatch::chunk_fn::<K>(s.isa, s.lanes)
            })
            .collect();
        // Chunks a multiple of every width (the candidates' widths divide the largest).
        let widest = shapes.iter().map(|s| s.lanes).fold(1, lcm);
        let ptrs = work.ptrs(save, k);
        let view = ptrs.view();
        let len = work.len();
        let chunk = chunk_size(len, self.threads(), widest);
        let ticket = std::sync::atomic::AtomicUsize::new(0);
        let body = || {
            (0..len.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(len));
                    let s = ticket.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % runs.len();
                    let t0 = std::time::Instant::now();
                    // SAFETY: as in `launch_shape`; every shape's ISA was checked above.
                    let st = unsafe { runs[s](&view, lo, hi, k) };
                    let timing = ProbeTiming {
                        shape: shapes[s],
                        secs: t0.elapsed().as_secs_f64(),
                        lane_steps: st.lane_steps,
                        whole: false,
                    };
                    (st, timing)
                })
                .collect::<Vec<_>>()
        };
        let per_chunk = match &self.pool {
            Some(p) => p.install(body),
            None => body(),
        };
        let stats = per_chunk
            .iter()
            .map(|p| p.0)
            .fold(LaunchStats::default(), |a, b| a + b);
        (stats, per_chunk.into_iter().map(|p| p.1).collect())
    }

    /// The working buffers this team keeps between runs (shared by its clones).
    pub fn buffers(&self) -> MutexGuard<'_, Buffers> {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on this team's threads (for passes like compaction).
    pub fn install<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

/// Least common multiple (chunk sizes that every lane width divides).
fn lcm(a: usize, b: usize) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_shrink_for_small_work_sets_and_stay_lane_multiples() {
        assert_eq!(chunk_size(100_000, 2, 8), CHUNK);
        assert_eq!(chunk_size(8 * CHUNK, 2, 8), CHUNK);
        // 1,000 slots on 2 threads: 8 tasks of 128 (125 rounded up to 8 lanes).
        assert_eq!(chunk_size(1000, 2, 8), 128);
        assert_eq!(chunk_size(1000, 2, 12), 132);
        assert_eq!(chunk_size(3, 2, 8), 8);
        assert_eq!(chunk_size(0, 2, 8), 8, "never zero");
        assert_eq!(
            chunk_size(100_000, 2, 12),
            1032,
            "a lane multiple above CHUNK"
        );
        for (len, threads, lanes) in [(5000, 3, 12), (17, 1, 1), (70_000, 16, 32)] {
            let c = chunk_size(len, threads, lanes);
            assert!(c > 0 && c.is_multiple_of(lanes) && c <= CHUNK.next_multiple_of(lanes));
            assert!(len.div_ceil(c) >= (len / CHUNK).min(threads * TASKS_PER_THREAD));
        }
    }
}
