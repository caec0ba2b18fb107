//! `lanes: auto`: the host team picks its launch shape (instruction set x lane width) by
//! measuring. Results are bit-identical for every shape, so the first launch of a run can
//! be a probe: its chunks take the candidate shapes in turn (interleaved over the work
//! set), each shape's chunks are timed per issued sample-step; the next three launches run
//! the three fastest, one whole launch each, timed the same way; the best of those is kept
//! for the rest of the run and remembered, in this process and on disk (per kernel,
//! element type, CPU model, instruction sets and thread count), so the next process starts
//! tuned. A run too short to decide leaves the probes' results to the team's next run.
//!
//! One process's measurement can be wrong on a noisy machine (a core that is shared for a
//! few seconds halves every launch timed then), and a cached choice would keep it. So the
//! entry holds the finalists' best times, and the next [`CHECKS`]` - 1` processes check it:
//! their first launches run the finalists again, one whole launch each (the cached choice
//! first), each finalist keeps its best time over every process, and the fastest by that
//! is the choice. Noise only ever slows a launch, so the best of several processes' times
//! is close to a shape's true speed.

use crate::Isa;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// How a lane group is laid out: the instruction set its loop is compiled for and the
/// samples it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Shape {
    /// Instruction set of the chunk loop.
    pub isa: Isa,
    /// Samples per lane group (one of [`crate::LANE_WIDTHS`]).
    pub lanes: usize,
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} lanes on {}", self.lanes, self.isa.name())
    }
}

/// Where a run's launch shape came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ShapeSource {
    /// Forced by [`crate::HostConfig::lanes`].
    Fixed,
    /// Measured by an earlier run of this team.
    Measured,
    /// Read from the on-disk tuning cache (measured by an earlier process).
    Cached,
    /// Measured by this run's first launches (the probes).
    Probed,
    /// Still probing when the run ended (too few launches to try every candidate).
    Probing,
}

impl ShapeSource {
    /// As the main job prints it.
    pub fn name(self) -> &'static str {
        match self {
            ShapeSource::Fixed => "fixed",
            ShapeSource::Measured => "measured earlier",
            ShapeSource::Cached => "cached",
            ShapeSource::Probed => "probed",
            ShapeSource::Probing => "probing",
        }
    }
}

/// The shape a launch runs with, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ShapeChoice {
    /// The shape.
    pub shape: Shape,
    /// Where it came from.
    pub source: ShapeSource,
}

/// The candidate shapes for element type `bytes` wide on a CPU whose best instruction set
/// is `best` (or only `best`, when `only_best`): 1, 2, 4 and 8 vectors of each instruction
/// set that has vectors (AVX2 on an AVX-512 CPU too: on some CPUs 512-bit operations are
/// split in two), as far as [`crate::LANE_WIDTHS`] goes.
pub fn candidates(best: Isa, elem_bytes: usize, only_best: bool) -> Vec<Shape> {
    let isas: &[Isa] = match (best, only_best) {
        (Isa::Avx512, false) => &[Isa::Avx512, Isa::Avx2],
        (Isa::Portable, _) => &[Isa::Portable],
        (i, _) => match i {
            Isa::Avx512 => &[Isa::Avx512],
            _ => &[Isa::Avx2],
        },
    };
    let mut out = Vec::new();
    for &isa in isas {
        let per_vector = isa.vector_bytes() / elem_bytes;
        for vectors in [1, 2, 4, 8] {
            let lanes = per_vector * vectors;
            if crate::LANE_WIDTHS.contains(&lanes) && lanes >= 4 {
                out.push(Shape { isa, lanes });
            }
        }
    }
    out
}

/// Finalists: the fastest candidates of the probe launch, each then timed over a whole
/// launch of its own before one is chosen.
const CONFIRM: usize = 3;

/// Processes whose measurements a tuning entry holds before it is used without a check.
pub const CHECKS: u32 = 3;

/// Fewest issued sample-steps a candidate needs in a probe to be timed (below it the
/// chunks' fixed costs dominate and the timing says nothing about the shape).
const MIN_PROBE_STEPS: u64 = 20_000;

/// What the next launch of a kernel runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchPlan {
    /// Every chunk at one shape.
    Run(ShapeChoice),
    /// A probe: the launch's chunks take these shapes in turn (interleaved over the work
    /// set) and each shape's chunks are timed; the launch does its full share of work.
    Probe(Vec<Shape>),
}

/// One shape's part of a probe launch: seconds its chunks took and sample-steps they issued.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeTiming {
    /// The shape.
    pub shape: Shape,
    /// Wall seconds of its chunks, summed (each chunk runs on one thread).
    pub secs: f64,
    /// Sample-steps its chunks issued.
    pub lane_steps: u64,
}

/// What a team knows about one kernel's shapes.
#[derive(Clone, Debug)]
enum State {
    /// Candidates and the best seconds per issued sample-step each measured so far in
    /// probe launches; then the fastest few, each timed over a whole launch of its own
    /// (short chunks of a fast kernel time noisily, whole launches do not).
    Probing {
        candidates: Vec<Shape>,
        timed: Vec<Option<f64>>,
        confirm: Vec<(Shape, Option<f64>)>,
    },
    /// A cached entry being checked: each finalist and this process's time for it (one
    /// whole launch each, as `confirm` above), its best time over earlier processes in
    /// `prior`; `checks`: processes whose measurements the entry holds.
    Checking {
        confirm: Vec<(Shape, Option<f64>)>,
        prior: Vec<f64>,
        checks: u32,
    },
    /// Decided.
    Chosen(Shape, ShapeSource),
}

/// The tuning key: which kernel, element type, CPU and thread count a choice is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TuneKey {
    /// Kernel name.
    pub kernel: &'static str,
    /// Element type (`f64`).
    pub elem: &'static str,
    /// Worker threads.
    pub threads: usize,
    /// The instruction sets the candidates use (`avx512+avx2`, or one when forced).
    pub isas: String,
}

/// A host team's shape choices, by kernel: probes, decisions, and the on-disk cache.
#[derive(Debug, Default)]
pub struct Tuner {
    states: Mutex<HashMap<TuneKey, State>>,
    /// Folder of the on-disk tuning cache; `None`: this process only.
    dir: Option<PathBuf>,
}

impl Tuner {
    /// A tuner remembering its choices in `dir` (`None`: in this process only).
    pub fn new(dir: Option<PathBuf>) -> Self {
        Tuner {
            states: Mutex::default(),
            dir,
        }
    }

    /// What the next launch of `key`'s kernel runs: the decided shape, or a probe of the
    /// candidates not yet timed (then of the fastest few, to confirm).
    pub fn next(&self, key: &TuneKey, candidates: impl FnOnce() -> Vec<Shape>) -> LaunchPlan {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let state = states.entry(key.clone()).or_insert_with(|| {
            let candidates = candidates();
            match self.load(key, &candidates) {
                Some(e) if e.checks >= CHECKS => State::Chosen(e.best(), ShapeSource::Cached),
                Some(e) => State::Checking {
                    confirm: e.finalists.iter().map(|&(s, _)| (s, None)).collect(),
                    prior: e.finalists.iter().map(|&(_, t)| t).collect(),
                    checks: e.checks,
                },
                None => State::Probing {
                    timed: vec![None; candidates.len()],
                    candidates,
                    confirm: Vec::new(),
                },
            }
        });
        match state {
            State::Chosen(shape, source) => LaunchPlan::Run(ShapeChoice {
                shape: *shape,
                source: *source,
            }),
            State::Checking { confirm, .. } => next_finalist(confirm),
            State::Probing {
                candidates,
                timed,
                confirm,
            } => {
                let untimed: Vec<Shape> = (0..candidates.len())
                    .filter(|&i| timed[i].is_none())
                    .map(|i| candidates[i])
                    .collect();
                if !untimed.is_empty() {
                    return LaunchPlan::Probe(untimed);
                }
                if confirm.is_empty() {
                    *confirm = ranked(timed)
                        .into_iter()
                        .take(CONFIRM)
                        .map(|i| (candidates[i], None))
                        .collect();
                }
                next_finalist(confirm)
            }
        }
    }

    /// Records a probe launch (several shapes' chunks, or one finalist's whole launch);
    /// once every finalist has been timed over a whole launch, the best of them is chosen,
    /// stored, and returned as `Probed`. A check of a cached entry returns its result once
    /// every finalist has been timed again: `Cached` when the cached choice stays,
    /// `Probed` when a faster finalist replaces it.
    pub fn record(&self, key: &TuneKey, probe: &[ProbeTiming]) -> Option<ShapeChoice> {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let (candidates, timed, confirm) = match states.get_mut(key) {
            Some(State::Probing {
                candidates,
                timed,
                confirm,
            }) => (candidates, timed, confirm),
            Some(State::Checking {
                confirm,
                prior,
                checks,
            }) => {
                time_finalists(confirm, probe);
                let finalists: Vec<(Shape, f64)> = confirm
                    .iter()
                    .zip(prior.iter())
                    .map(|(c, &t)| Some((c.0, t.min(c.1?))))
                    .collect::<Option<_>>()?;
                let entry = Entry::new(finalists, *checks + 1);
                let cached = confirm[0].0;
                let best = entry.best();
                let source = if best == cached {
                    ShapeSource::Cached
                } else {
                    ShapeSource::Probed
                };
                states.insert(key.clone(), State::Chosen(best, source));
                drop(states);
                self.store(key, &entry);
                return Some(ShapeChoice {
                    shape: best,
                    source,
                });
            }
            _ => return None,
        };
        if confirm.is_empty() {
            for (shape, rate) in rates(probe) {
                if let Some(i) = candidates.iter().position(|&s| s == shape) {
                    keep_best(&mut timed[i], rate);
                }
            }
        } else {
            time_finalists(confirm, probe);
        }
        let finalists: Vec<(Shape, f64)> = if candidates.len() == 1 && timed[0].is_some() {
            vec![(candidates[0], timed[0].unwrap_or(f64::INFINITY))]
        } else if !confirm.is_empty() && confirm.iter().all(|c| c.1.is_some()) {
            confirm
                .iter()
                .map(|c| (c.0, c.1.unwrap_or(f64::INFINITY)))
                .collect()
        } else {
            return None;
        };
        let entry = Entry::new(finalists, if candidates.len() == 1 { CHECKS } else { 1 });
        let best = entry.best();
        states.insert(key.clone(), State::Chosen(best, ShapeSource::Measured));
        drop(states);
        self.store(key, &entry);
        Some(ShapeChoice {
            shape: best,
            source: ShapeSource::Probed,
        })
    }

    /// The entry an earlier process stored for `key`, if its finalists are all `candidates`.
    fn load(&self, key: &TuneKey, candidates: &[Shape]) -> Option<Entry> {
        let text = std::fs::read_to_string(self.file(key)?).ok()?;
        let entry = parse_entry(&text, &entry_key(key))?;
        entry
            .finalists
            .iter()
            .all(|f| candidates.contains(&f.0))
            .then_some(entry)
    }

    /// Stores `entry` for `key` (a failure only costs the next process its probes).
    fn store(&self, key: &TuneKey, entry: &Entry) {
        let Some(path) = self.file(key) else { return };
        let mut text = format!("{HEADER}\n{}\nchecks {}\n", entry_key(key), entry.checks);
        for (shape, secs) in &entry.finalists {
            text += &format!("{} {} {secs:e}\n", shape.isa.name(), shape.lanes);
        }
        store_entry(&path, &text);
    }

    fn file(&self, key: &TuneKey) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("host")
                .join(format!("{:016x}.lanes", fnv1a(&entry_key(key)))),
        )
    }
}

/// First line of a tuning-cache entry.
const HEADER: &str = "eagle host tuning v2";

/// A tuning-cache entry: the finalists with their best seconds per issued sample-step over
/// the processes that measured them (`checks` of them), the cached choice first.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    finalists: Vec<(Shape, f64)>,
    checks: u32,
}

impl Entry {
    /// The entry for `finalists` measured by `checks` processes, the fastest first.
    fn new(mut finalists: Vec<(Shape, f64)>, checks: u32) -> Self {
        let rates: Vec<Option<f64>> = finalists.iter().map(|f| Some(f.1)).collect();
        let best = finalists[ranked(&rates)[0]].0;
        finalists.sort_by_key(|f| f.0 != best);
        Entry { finalists, checks }
    }

    /// The choice: the fastest finalist.
    fn best(&self) -> Shape {
        self.finalists[0].0
    }
}

/// Seconds per issued sample-step of each shape `probe` timed over enough steps.
fn rates(probe: &[ProbeTiming]) -> impl Iterator<Item = (Shape, f64)> + '_ {
    probe
        .iter()
        .filter(|p| p.lane_steps >= MIN_PROBE_STEPS)
        .map(|p| (p.shape, p.secs / p.lane_steps as f64))
}

/// Keeps the faster of `best` and `rate`.
fn keep_best(best: &mut Option<f64>, rate: f64) {
    *best = Some(best.map_or(rate, |t| t.min(rate)));
}

/// Records finalists' whole launches in `confirm`, each finalist by its best.
fn time_finalists(confirm: &mut [(Shape, Option<f64>)], probe: &[ProbeTiming]) {
    for (shape, rate) in rates(probe) {
        if let Some(c) = confirm.iter_mut().find(|c| c.0 == shape) {
            keep_best(&mut c.1, rate);
        }
    }
}

/// A whole launch of the first finalist not yet timed (the first when all are).
fn next_finalist(confirm: &[(Shape, Option<f64>)]) -> LaunchPlan {
    let next = confirm
        .iter()
        .find(|c| c.1.is_none())
        .unwrap_or(&confirm[0]);
    LaunchPlan::Probe(vec![next.0])
}

/// The entry's key line: everything the choice depends on.
fn entry_key(key: &TuneKey) -> String {
    format!(
        "kernel={} elem={} threads={} cpu={} isa={} candidates={} eagle={}",
        key.kernel,
        key.elem,
        key.threads,
        cpu_model(),
        Isa::detect().name(),
        key.isas,
        env!("CARGO_PKG_VERSION")
    )
}

/// The entry in `text`, when its header and key are `key`'s and every line parses (else
/// `None`: corrupt or foreign entries are ignored and measured again).
fn parse_entry(text: &str, key: &str) -> Option<Entry> {
    let mut lines = entry_lines(text, HEADER, key)?;
    let checks: u32 = lines.next()?.strip_prefix("checks ")?.parse().ok()?;
    let finalists = lines
        .map(|line| {
            let mut words = line.split(' ');
            let isa = Isa::from_name(words.next()?)?;
            let lanes: usize = words.next()?.parse().ok()?;
            let secs: f64 = words.next()?.parse().ok()?;
            (isa.available()
                && crate::LANE_WIDTHS.contains(&lanes)
                && secs.is_finite()
                && secs > 0.0
                && words.next().is_none())
            .then_some((Shape { isa, lanes }, secs))
        })
        .collect::<Option<Vec<_>>>()?;
    (checks >= 1 && !finalists.is_empty()).then(|| Entry::new(finalists, checks))
}

/// The lines after an entry's first two, when those are `header` and `key` (else `None`:
/// a corrupt or foreign entry). Entries of the tuning folder (`.lanes`, `.peak`) are a
/// header line, the whole key they answer, then their value.
pub(crate) fn entry_lines<'t>(
    text: &'t str,
    header: &str,
    key: &str,
) -> Option<std::str::Lines<'t>> {
    let mut lines = text.lines();
    (lines.next()? == header && lines.next()? == key).then_some(lines)
}

/// Writes an entry of the tuning folder (its folder created, a temp file renamed over it,
/// so a reader never sees half of one); a failure only costs the next process a
/// measurement.
pub(crate) fn store_entry(path: &std::path::Path, text: &str) {
    if path
        .parent()
        .is_none_or(|p| std::fs::create_dir_all(p).is_err())
    {
        return;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// Candidate indices, fastest first (untimed last).
fn ranked(timed: &[Option<f64>]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..timed.len()).collect();
    idx.sort_by(|&a, &b| {
        let t = |i: usize| timed[i].unwrap_or(f64::INFINITY);
        t(a).total_cmp(&t(b))
    });
    idx
}

/// The CPU's model name (`/proc/cpuinfo`), or `unknown`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// 64-bit FNV-1a: a file name for a key (the file holds the whole key, which is checked).
pub(crate) fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> TuneKey {
        TuneKey {
            kernel: "k",
            elem: "f64",
            threads: 2,
            isas: "portable".into(),
        }
    }

    fn shapes() -> Vec<Shape> {
        [4, 8, 16]
            .map(|lanes| Shape {
                isa: Isa::Portable,
                lanes,
            })
            .to_vec()
    }

    /// Runs probe launches with the given seconds per step by width until decided; the
    /// decision and the number of probe launches.
    fn probe(t: &Tuner, rate: impl Fn(usize) -> f64) -> (ShapeChoice, usize) {
        for n in 1..20 {
            let LaunchPlan::Probe(shapes) = t.next(&key(), shapes) else {
                panic!("decided without saying so");
            };
            let timings: Vec<ProbeTiming> = shapes
                .iter()
                .map(|&shape| ProbeTiming {
                    shape,
                    secs: rate(shape.lanes) * 1e5,
                    lane_steps: 100_000,
                })
                .collect();
            if let Some(done) = t.record(&key(), &timings) {
                return (done, n);
            }
        }
        panic!("never decided");
    }

    #[test]
    fn one_probe_times_every_candidate_one_more_confirms_and_the_choice_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tuner::new(Some(dir.path().to_path_buf()));
        let (done, launches) = probe(&t, |w| if w == 8 { 1.0 } else { 2.0 });
        assert_eq!((done.shape.lanes, done.source), (8, ShapeSource::Probed));
        assert_eq!(
            launches,
            1 + CONFIRM,
            "a probe of all, then one launch per finalist"
        );
        let LaunchPlan::Run(again) = t.next(&key(), shapes) else {
            panic!("decided")
        };
        assert_eq!(
            (again.shape.lanes, again.source),
            (8, ShapeSource::Measured)
        );
        // The next processes (new tuners on the same folder) check the cached entry: one
        // whole launch per finalist, the cached choice first; then it is used unchecked.
        for process in 2..=CHECKS {
            let t = Tuner::new(Some(dir.path().to_path_buf()));
            let LaunchPlan::Probe(first) = t.next(&key(), shapes) else {
                panic!("process {process} checks the entry")
            };
            assert_eq!(first[0].lanes, 8, "the cached choice first");
            let (done, launches) = probe(&t, |w| if w == 8 { 1.0 } else { 2.0 });
            assert_eq!((done.shape.lanes, done.source), (8, ShapeSource::Cached));
            assert_eq!(launches, CONFIRM, "one launch per finalist");
        }
        let t2 = Tuner::new(Some(dir.path().to_path_buf()));
        let LaunchPlan::Run(c) = t2.next(&key(), shapes) else {
            panic!("cached")
        };
        assert_eq!((c.shape.lanes, c.source), (8, ShapeSource::Cached));
        // Another thread count, or other candidate ISAs, is another entry.
        let other = TuneKey {
            threads: 3,
            ..key()
        };
        assert!(matches!(t2.next(&other, shapes), LaunchPlan::Probe(_)));
        let other = TuneKey {
            isas: "avx2".into(),
            ..key()
        };
        assert!(matches!(t2.next(&other, shapes), LaunchPlan::Probe(_)));
    }

    #[test]
    fn a_slowed_first_measurement_is_corrected_by_the_confirming_probe() {
        let t = Tuner::new(None);
        let noisy = std::cell::Cell::new(true);
        // 8 lanes is fastest in truth, but its chunks in the probe launch were slowed down
        // (another process took the core); as a finalist it gets a whole launch of its own.
        let (done, _) = probe(&t, |w| match w {
            8 if noisy.replace(false) => 2.5,
            8 => 1.0,
            16 => 1.5,
            _ => 3.0,
        });
        assert_eq!(done.shape.lanes, 8);
    }

    #[test]
    fn a_cached_choice_that_one_noisy_process_got_wrong_is_corrected_by_the_checks() {
        let dir = tempfile::tempdir().unwrap();
        let tuner = || Tuner::new(Some(dir.path().to_path_buf()));
        // 8 lanes is fastest, but the first process timed it while the core was shared.
        let (first, _) = probe(&tuner(), |w| match w {
            8 => 2.5,
            16 => 1.5,
            _ => 3.0,
        });
        assert_eq!(first.shape.lanes, 16);
        // The next process's check times 8 lanes undisturbed: it becomes the choice.
        let (second, _) = probe(&tuner(), |w| match w {
            8 => 1.0,
            16 => 1.5,
            _ => 3.0,
        });
        assert_eq!(
            (second.shape.lanes, second.source),
            (8, ShapeSource::Probed)
        );
        // A third process slowed down throughout keeps it: each finalist's best time counts.
        let (third, _) = probe(&tuner(), |w| 3.0 * w as f64);
        assert_eq!((third.shape.lanes, third.source), (8, ShapeSource::Cached));
        let LaunchPlan::Run(c) = tuner().next(&key(), shapes) else {
            panic!("checked {CHECKS} times: used as it is")
        };
        assert_eq!((c.shape.lanes, c.source), (8, ShapeSource::Cached));
    }

    #[test]
    fn corrupt_or_foreign_entries_are_ignored_and_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tuner::new(Some(dir.path().to_path_buf()));
        probe(&t, |w| w as f64);
        let file = t.file(&key()).unwrap();
        let good = std::fs::read_to_string(&file).unwrap();
        assert!(parse_entry(&good, &entry_key(&key())).is_some());
        // Measured again: a probe of every candidate (a check of a good entry times one
        // finalist per launch).
        let probes = |text: &str| {
            std::fs::write(&file, text).unwrap();
            let t = Tuner::new(Some(dir.path().to_path_buf()));
            matches!(t.next(&key(), shapes), LaunchPlan::Probe(p) if p == shapes())
        };
        assert!(good.contains("\nportable 4 4e0\n"), "{good}");
        for bad in [
            good.replace(HEADER, "something else"),
            good.replace("eagle host tuning v2", "eagle host tuning v1"),
            good.replace("kernel=k", "kernel=other"),
            good.replace("portable 4 ", "portable 5 "),
            good.replace("portable 4 ", "portable x "),
            good.replace(" 4e0", " -4e0"),
            good.replace(" 4e0", " NaN"),
            good.replace(" 4e0", ""),
            good.replace("checks 1", "checks x"),
            good.replace("checks 1", "checks 0"),
            good[..good.len() / 2].to_owned(),
            String::from_utf8_lossy(&[0xff, 0xfe, 0]).into_owned(),
            // A shape that is not a candidate (e.g. from a build with other widths).
            good.replace("portable 4 ", "portable 32 "),
        ] {
            assert!(probes(&bad), "{bad:?} was used");
        }
        assert!(!probes(&good));
        assert!(!probes(
            &good.replace("checks 1", &format!("checks {CHECKS}"))
        ));
    }

    #[test]
    fn candidates_too_small_to_time_are_probed_again() {
        let t = Tuner::new(None);
        let LaunchPlan::Probe(all) = t.next(&key(), shapes) else {
            panic!()
        };
        let tiny: Vec<ProbeTiming> = all
            .iter()
            .map(|&shape| ProbeTiming {
                shape,
                secs: 1e-6,
                lane_steps: MIN_PROBE_STEPS - 1,
            })
            .collect();
        assert!(t.record(&key(), &tiny).is_none());
        assert_eq!(t.next(&key(), shapes), LaunchPlan::Probe(all));
    }

    #[test]
    fn candidates_cover_avx2_on_avx512_and_wide_f32() {
        let c = candidates(Isa::Avx512, 8, false);
        let l = |isa| {
            c.iter()
                .filter(|s| s.isa == isa)
                .map(|s| s.lanes)
                .collect::<Vec<_>>()
        };
        assert_eq!(l(Isa::Avx512), [8, 16, 32, 64]);
        assert_eq!(l(Isa::Avx2), [4, 8, 16, 32]);
        let f32s = candidates(Isa::Avx512, 4, false);
        assert!(f32s.contains(&Shape {
            isa: Isa::Avx512,
            lanes: 64
        }));
        assert!(
            candidates(Isa::Avx512, 8, true)
                .iter()
                .all(|s| s.isa == Isa::Avx512)
        );
        assert_eq!(candidates(Isa::Avx2, 8, false).len(), 4);
    }
}
