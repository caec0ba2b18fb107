//! `lanes: auto`: the host team picks its launch shape (instruction set x lane width) by
//! measuring. Results are bit-identical for every shape, so the first launch of a run can
//! be a probe: its chunks take the candidate shapes in turn (each chunk the next shape
//! when it starts, so a shape's chunks are spread over the launch and over the threads),
//! and each shape counts its fastest chunk, per issued sample-step. The next launches run
//! the three fastest, one whole launch each, in `FINAL_ROUNDS` rounds (so that one noisy
//! stretch does not slow every launch of one shape), each timed by its chunks' busy time;
//! the best time of each decides, and the fastest is kept for the rest of the run and
//! remembered, in this process and on disk (per
//! kernel, element type, CPU model, instruction sets and thread count), so the next
//! process starts tuned. A run too short to decide leaves the measurements to the team's
//! next run.
//!
//! One process's measurement can be wrong on a noisy machine (a core that is shared for a
//! few milliseconds slows every chunk timed then, and a shape that missed the finalists
//! can never be chosen), and a cached choice would keep it. So the entry holds every
//! shape's best probe and the finalists' best whole launches, and the next [`CHECKS`]` -
//! 1` processes measure again: the cached choice over their first launch, then a probe of
//! every candidate, then the fastest few by the best probe of any process (and the cached
//! choice), in rounds of one whole launch each. Every time counts as its best over the
//! processes, and the fastest finalist by that is the choice. Noise only ever slows a launch, so the best of several
//! processes' times is close to a shape's true speed.
//!
//! The entries live in `<cache>/host/`, as private as the device team's cubins (a choice
//! decides which code runs): folders 0700, files 0600 written atomically, and a folder or
//! an entry that another user owns or that group or others may write is not used: the run
//! measures as if there were no entry, writes nothing there, and says so once in its notes
//! ([`Tuner::take_notes`]; see [`crate::private_fs`]).

use crate::Isa;
use crate::private_fs::{self, FsError};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
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
    /// Set by the kernel: it has the portable loops alone (`host_loops = "portable"`).
    Kernel,
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
            ShapeSource::Kernel => "the kernel's portable loops",
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
/// split in two), as far as the instruction set's [`Isa::lane_widths`] go.
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
            if isa.lane_widths().contains(&lanes) && lanes >= 4 {
                out.push(Shape { isa, lanes });
            }
        }
    }
    out
}

/// Finalists: the fastest candidates of the probe launch, each then timed over a whole
/// launch of its own before one is chosen.
const CONFIRM: usize = 3;

/// Rounds of whole launches the finalists get in each measuring process, one launch per
/// finalist per round (A B C A B C): on a machine whose cores come and go, one shape's
/// single launch can fall into a slow stretch, and its best time would then be wrong.
const FINAL_ROUNDS: usize = 2;

/// Processes whose measurements a tuning entry holds before it is used without a check.
pub const CHECKS: u32 = 3;

/// Fewest issued sample-steps a timing needs to count (below it the chunks' fixed costs
/// dominate and the timing says nothing about the shape).
const MIN_PROBE_STEPS: u64 = 20_000;

/// What the next launch of a kernel runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchPlan {
    /// Every chunk at one shape.
    Run(ShapeChoice),
    /// A probe: the launch's chunks take these shapes in turn (spread over the launch's
    /// time) and each chunk is timed; the launch does its full share of work.
    Probe(Vec<Shape>),
    /// A finalist: one whole launch at this shape, timed by its chunks' busy time (summed
    /// over the threads, so the launch's fork and join and a parked thread's wake-up,
    /// the same for every shape and large against a launch of a fraction of a
    /// millisecond, are left out).
    Time(Shape),
}

/// A timing for the tuner: one chunk of a probe launch, or one whole launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeTiming {
    /// The shape.
    pub shape: Shape,
    /// Wall seconds it took.
    pub secs: f64,
    /// Sample-steps it issued.
    pub lane_steps: u64,
    /// A whole launch ([`LaunchPlan::Time`]) rather than one chunk of a probe.
    pub whole: bool,
}

/// What a team knows about one kernel's shapes.
#[derive(Clone, Debug)]
enum State {
    /// Measuring, in this order: the cached choice over a whole launch (when an earlier
    /// process's entry is being checked), a probe launch of every candidate (`timed`: each
    /// one's best chunk, in seconds per issued sample-step), then the fastest few by the
    /// probes of this and earlier processes, each over a whole launch of its own (short
    /// chunks of a fast kernel time noisily, whole launches do not).
    Tuning(Measuring),
    /// Decided.
    Chosen(Shape, ShapeSource),
}

/// What [`State::Tuning`] has measured so far.
#[derive(Clone, Debug)]
struct Measuring {
    candidates: Vec<Shape>,
    timed: Vec<Option<f64>>,
    /// Shapes timed over whole launches and their best time; `picked`: the finalists
    /// are in (before that, only the cached choice).
    confirm: Vec<(Shape, Option<f64>)>,
    /// Whole launches still to run, in order: the cached choice before the probe, then
    /// the finalists' rounds.
    schedule: Vec<Shape>,
    picked: bool,
    /// What earlier processes measured (an entry with fewer than [`CHECKS`] checks).
    prior: Option<Entry>,
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
    /// Refusals of the on-disk cache not yet handed to a report.
    notes: Mutex<Notes>,
}

impl Tuner {
    /// A tuner remembering its choices in `dir` (`None`: in this process only).
    pub fn new(dir: Option<PathBuf>) -> Self {
        Tuner {
            states: Mutex::default(),
            dir,
            notes: Mutex::default(),
        }
    }

    /// Notes not yet taken: why the on-disk tuning cache was not used (a folder or an
    /// entry another user owns, or group or others may write), each reason once per tuner.
    pub fn take_notes(&self) -> Vec<String> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn refused(&self, why: String) {
        self.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(format!(
                "host tuning cache: {why}: not used (measured again, nothing written there)"
            ));
    }

    /// What the next launch of `key`'s kernel runs: the decided shape, or the next
    /// measurement (the cached choice, a probe of the candidates not yet timed, a finalist).
    pub fn next(&self, key: &TuneKey, candidates: impl FnOnce() -> Vec<Shape>) -> LaunchPlan {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let state = states.entry(key.clone()).or_insert_with(|| {
            let candidates = candidates();
            let prior = self.load(key, &candidates);
            match prior {
                Some(e) if e.checks >= CHECKS => State::Chosen(e.best(), ShapeSource::Cached),
                prior => State::Tuning(Measuring {
                    timed: vec![None; candidates.len()],
                    candidates,
                    confirm: prior.iter().map(|e| (e.best(), None)).collect(),
                    schedule: prior.iter().map(Entry::best).collect(),
                    picked: false,
                    prior,
                }),
            }
        });
        let m = match state {
            State::Chosen(shape, source) => {
                return LaunchPlan::Run(ShapeChoice {
                    shape: *shape,
                    source: *source,
                });
            }
            State::Tuning(m) => m,
        };
        if let (Some(&cached), false) = (m.schedule.first(), m.picked) {
            return LaunchPlan::Time(cached);
        }
        let untimed: Vec<Shape> = (0..m.candidates.len())
            .filter(|&i| m.timed[i].is_none())
            .map(|i| m.candidates[i])
            .collect();
        if !untimed.is_empty() {
            return LaunchPlan::Probe(untimed);
        }
        if !m.picked {
            let both = best_probes(&m.candidates, &m.timed, m.prior.as_ref());
            for i in ranked(&both).into_iter().take(CONFIRM) {
                if m.confirm.iter().all(|c| c.0 != m.candidates[i]) {
                    m.confirm.push((m.candidates[i], None));
                }
            }
            let round = m.confirm.iter().map(|c| c.0);
            m.schedule = (0..FINAL_ROUNDS).flat_map(|_| round.clone()).collect();
            m.picked = true;
        }
        LaunchPlan::Time(*m.schedule.first().unwrap_or(&m.confirm[0].0))
    }

    /// Records a launch's timings (a probe's chunks, or one whole launch); once every
    /// finalist has had its rounds of whole launches, the fastest of them (by its best time
    /// over this and earlier processes) is chosen, stored, and returned: `Probed` when
    /// this process measured from scratch or replaced the cached choice, `Cached` when a
    /// check keeps it.
    pub fn record(&self, key: &TuneKey, timings: &[ProbeTiming]) -> Option<ShapeChoice> {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let Some(State::Tuning(m)) = states.get_mut(key) else {
            return None;
        };
        for (shape, rate) in rates(timings.iter().filter(|t| !t.whole)) {
            if let Some(i) = m.candidates.iter().position(|&s| s == shape) {
                keep_best(&mut m.timed[i], rate);
            }
        }
        for (shape, rate) in rates(timings.iter().filter(|t| t.whole)) {
            if let Some(c) = m.confirm.iter_mut().find(|c| c.0 == shape) {
                keep_best(&mut c.1, rate);
            }
            if let Some(i) = m.schedule.iter().position(|&s| s == shape) {
                m.schedule.remove(i);
            }
        }
        let probes: Vec<(Shape, f64)> = m
            .candidates
            .iter()
            .zip(best_probes(&m.candidates, &m.timed, m.prior.as_ref()))
            .filter_map(|(&s, t)| Some((s, t?)))
            .collect();
        let (finalists, checks) = if m.candidates.len() == 1 && m.timed[0].is_some() {
            (probes.clone(), CHECKS)
        } else if m.picked && m.schedule.is_empty() {
            let finalists = m
                .confirm
                .iter()
                .map(|&(s, t)| {
                    let best = min_of(t, m.prior.as_ref().and_then(|e| time_of(&e.finalists, s)));
                    (s, best.unwrap_or(f64::INFINITY))
                })
                .collect();
            (finalists, m.prior.as_ref().map_or(1, |e| e.checks + 1))
        } else {
            return None;
        };
        let entry = Entry::new(probes, finalists, checks);
        let best = entry.best();
        let (state, source) = match &m.prior {
            None => (ShapeSource::Measured, ShapeSource::Probed),
            Some(e) if e.best() == best => (ShapeSource::Cached, ShapeSource::Cached),
            Some(_) => (ShapeSource::Probed, ShapeSource::Probed),
        };
        states.insert(key.clone(), State::Chosen(best, state));
        drop(states);
        self.store(key, &entry);
        Some(ShapeChoice {
            shape: best,
            source,
        })
    }

    /// The entry an earlier process stored for `key`, if all its shapes are `candidates`.
    fn load(&self, key: &TuneKey, candidates: &[Shape]) -> Option<Entry> {
        let dir = self.dir.as_deref()?;
        let text = load_entry(dir, &file_name(key), |why| self.refused(why))?;
        let entry = parse_entry(&text, &entry_key(key))?;
        entry
            .probes
            .iter()
            .chain(&entry.finalists)
            .all(|f| candidates.contains(&f.0))
            .then_some(entry)
    }

    /// Stores `entry` for `key` (a failure only costs the next process its probes).
    fn store(&self, key: &TuneKey, entry: &Entry) {
        let Some(dir) = self.dir.as_deref() else {
            return;
        };
        let mut text = format!("{HEADER}\n{}\nchecks {}\n", entry_key(key), entry.checks);
        for (word, list) in [("probe", &entry.probes), ("final", &entry.finalists)] {
            for (shape, secs) in list {
                text += &format!("{word} {} {} {secs:e}\n", shape.isa.name(), shape.lanes);
            }
        }
        store_entry(dir, &file_name(key), &text, |why| self.refused(why));
    }

    #[cfg(test)]
    fn file(&self, key: &TuneKey) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(HOST_DIR).join(file_name(key)))
    }
}

/// The file name of `key`'s entry in the tuning folder.
fn file_name(key: &TuneKey) -> String {
    format!("{:016x}.lanes", fnv1a(&entry_key(key)))
}

/// Notes of refusals, each text once (a refused folder is met by every load and store).
#[derive(Debug, Default)]
pub(crate) struct Notes {
    pending: Vec<String>,
    seen: Vec<String>,
}

impl Notes {
    /// No notes yet (for a `static`).
    pub(crate) const fn new() -> Self {
        Notes {
            pending: Vec::new(),
            seen: Vec::new(),
        }
    }

    /// Adds `note` unless it was added before.
    pub(crate) fn add(&mut self, note: String) {
        if !self.seen.contains(&note) {
            self.seen.push(note.clone());
            self.pending.push(note);
        }
    }

    /// The notes added since the last take.
    pub(crate) fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pending)
    }
}

/// First line of a tuning-cache entry.
const HEADER: &str = "eagle host tuning v4";

/// A tuning-cache entry, over the processes that measured it (`checks` of them): each
/// candidate's best probe chunk and each finalist's best whole launch, in seconds per
/// issued sample-step, the finalists the fastest (the choice) first.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    probes: Vec<(Shape, f64)>,
    finalists: Vec<(Shape, f64)>,
    checks: u32,
}

impl Entry {
    /// The entry for these timings measured by `checks` processes, the fastest finalist
    /// first.
    fn new(probes: Vec<(Shape, f64)>, mut finalists: Vec<(Shape, f64)>, checks: u32) -> Self {
        let rates: Vec<Option<f64>> = finalists.iter().map(|f| Some(f.1)).collect();
        let best = finalists[ranked(&rates)[0]].0;
        finalists.sort_by_key(|f| f.0 != best);
        Entry {
            probes,
            finalists,
            checks,
        }
    }

    /// The choice: the fastest finalist.
    fn best(&self) -> Shape {
        self.finalists[0].0
    }
}

/// `shape`'s time in one of an entry's lists, if it is there.
fn time_of(list: &[(Shape, f64)], shape: Shape) -> Option<f64> {
    list.iter().find(|p| p.0 == shape).map(|p| p.1)
}

/// Each candidate's best probe over this process (`timed`) and earlier ones (`prior`).
fn best_probes(
    candidates: &[Shape],
    timed: &[Option<f64>],
    prior: Option<&Entry>,
) -> Vec<Option<f64>> {
    candidates
        .iter()
        .zip(timed)
        .map(|(&s, &t)| min_of(t, prior.and_then(|e| time_of(&e.probes, s))))
        .collect()
}

/// Seconds per issued sample-step of each shape in `timings`: its fastest timing over
/// enough steps, or, when none is, all of its timings together if they are.
fn rates<'t>(timings: impl Iterator<Item = &'t ProbeTiming>) -> Vec<(Shape, f64)> {
    let mut per: Vec<(Shape, Option<f64>, f64, u64)> = Vec::new();
    for t in timings {
        let i = per.iter().position(|p| p.0 == t.shape).unwrap_or_else(|| {
            per.push((t.shape, None, 0.0, 0));
            per.len() - 1
        });
        let p = &mut per[i];
        if t.lane_steps >= MIN_PROBE_STEPS {
            keep_best(&mut p.1, t.secs / t.lane_steps as f64);
        }
        (p.2, p.3) = (p.2 + t.secs, p.3 + t.lane_steps);
    }
    per.into_iter()
        .filter_map(|(shape, best, secs, steps)| {
            let summed = (steps >= MIN_PROBE_STEPS).then(|| secs / steps as f64);
            Some((shape, best.or(summed)?))
        })
        .collect()
}

/// The smaller of two optional times.
fn min_of(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Keeps the faster of `best` and `rate`.
fn keep_best(best: &mut Option<f64>, rate: f64) {
    *best = min_of(*best, Some(rate));
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
    let (mut probes, mut finalists) = (Vec::new(), Vec::new());
    for line in lines {
        let mut words = line.split(' ');
        let list = match words.next()? {
            "probe" => &mut probes,
            "final" => &mut finalists,
            _ => return None,
        };
        let isa = Isa::from_name(words.next()?)?;
        let lanes: usize = words.next()?.parse().ok()?;
        let secs: f64 = words.next()?.parse().ok()?;
        let ok = isa.available()
            && crate::LANE_WIDTHS.contains(&lanes)
            && secs.is_finite()
            && secs > 0.0
            && words.next().is_none();
        list.push(ok.then_some((Shape { isa, lanes }, secs))?);
    }
    (checks >= 1 && !finalists.is_empty()).then(|| Entry::new(probes, finalists, checks))
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

/// The tuning folder (`.lanes` and `.peak` entries) inside the cache folder.
pub(crate) const HOST_DIR: &str = "host";

/// The text of entry `name` of the tuning folder in cache folder `root`; `None` when there
/// is none or it cannot be read (it is measured again), and also when the cache folder,
/// the tuning folder or the entry is not to be trusted ([`private_fs`]): then `refused`
/// is told why.
pub(crate) fn load_entry(
    root: &Path,
    name: &str,
    mut refused: impl FnMut(String),
) -> Option<String> {
    let host = root.join(HOST_DIR);
    for dir in [root, host.as_path()] {
        if let Some(why) = private_fs::refused_dir(dir) {
            refused(why);
            return None;
        }
    }
    match private_fs::read_private(&host.join(name)) {
        Ok(bytes) => String::from_utf8(bytes?).ok(),
        Err(FsError::Untrusted(why)) => {
            refused(why);
            None
        }
        Err(FsError::Io(_)) => None,
    }
}

/// Writes entry `name` of the tuning folder in cache folder `root`: the folders made 0700
/// where missing, the entry a new 0600 file renamed over the old one (a reader never sees
/// half of one). Nothing is written into a folder that is not to be trusted: `refused` is
/// told why. Any failure only costs the next process a measurement.
pub(crate) fn store_entry(root: &Path, name: &str, text: &str, mut refused: impl FnMut(String)) {
    let host = root.join(HOST_DIR);
    let written = private_fs::private_dir(root)
        .and_then(|()| private_fs::private_dir(&host))
        .and_then(|()| {
            private_fs::write_private(&host.join(name), |f| f.write_all(text.as_bytes()))
        });
    if let Err(FsError::Untrusted(why)) = written {
        refused(why);
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
        [4, 8, 12, 16]
            .map(|lanes| Shape {
                isa: Isa::Portable,
                lanes,
            })
            .to_vec()
    }

    /// The timing a launch of `plan` reports when a chunk of width `w` takes `rate(w)`
    /// seconds per step (two chunks per shape in a probe, the second at `slow` times that).
    fn timings(plan: &LaunchPlan, rate: impl Fn(usize) -> f64, slow: f64) -> Vec<ProbeTiming> {
        let one = |shape: Shape, f: f64, whole| ProbeTiming {
            shape,
            secs: rate(shape.lanes) * f * 1e5,
            lane_steps: 100_000,
            whole,
        };
        match plan {
            LaunchPlan::Probe(shapes) => shapes
                .iter()
                .flat_map(|&s| [one(s, 1.0, false), one(s, slow, false)])
                .collect(),
            LaunchPlan::Time(s) => vec![one(*s, 1.0, true)],
            LaunchPlan::Run(_) => panic!("decided without saying so"),
        }
    }

    /// Runs launches with the given seconds per step by width until decided; the
    /// decision and the plans of the launches.
    fn probe(t: &Tuner, rate: impl Fn(usize) -> f64) -> (ShapeChoice, Vec<LaunchPlan>) {
        let mut plans = Vec::new();
        for _ in 1..20 {
            let plan = t.next(&key(), shapes);
            let timed = timings(&plan, &rate, 1.0);
            plans.push(plan);
            if let Some(done) = t.record(&key(), &timed) {
                return (done, plans);
            }
        }
        panic!("never decided");
    }

    fn tuner(dir: &tempfile::TempDir) -> Tuner {
        Tuner::new(Some(dir.path().to_path_buf()))
    }

    fn time(lanes: usize) -> LaunchPlan {
        LaunchPlan::Time(Shape {
            isa: Isa::Portable,
            lanes,
        })
    }

    /// The finalists' whole launches: [`FINAL_ROUNDS`] rounds of one each, in this order.
    fn rounds(finalists: &[usize]) -> Vec<LaunchPlan> {
        (0..FINAL_ROUNDS)
            .flat_map(|_| finalists.iter().map(|&w| time(w)))
            .collect()
    }

    #[test]
    fn one_probe_times_every_candidate_one_more_confirms_and_the_choice_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let t = tuner(&dir);
        let (done, plans) = probe(&t, |w| if w == 8 { 1.0 } else { 2.0 });
        assert_eq!((done.shape.lanes, done.source), (8, ShapeSource::Probed));
        assert_eq!(
            plans,
            [[LaunchPlan::Probe(shapes())].to_vec(), rounds(&[8, 4, 12])].concat(),
            "a probe of all, then rounds of one launch per finalist, fastest first"
        );
        let LaunchPlan::Run(again) = t.next(&key(), shapes) else {
            panic!("decided")
        };
        assert_eq!(
            (again.shape.lanes, again.source),
            (8, ShapeSource::Measured)
        );
        // The next processes (new tuners on the same folder) check the cached entry: the
        // cached choice over a whole launch first, a probe of all, then the finalists'
        // rounds (the cached choice among them); then it is used unchecked.
        for process in 2..=CHECKS {
            let (done, plans) = probe(&tuner(&dir), |w| if w == 8 { 1.0 } else { 2.0 });
            assert_eq!(
                (done.shape.lanes, done.source),
                (8, ShapeSource::Cached),
                "process {process}"
            );
            assert_eq!(
                plans,
                [
                    [time(8), LaunchPlan::Probe(shapes())].to_vec(),
                    rounds(&[8, 4, 12])
                ]
                .concat()
            );
        }
        let t2 = tuner(&dir);
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
    fn a_slowed_first_measurement_is_corrected_by_the_confirming_launches() {
        let t = Tuner::new(None);
        let noisy = std::cell::Cell::new(2);
        // 8 lanes is fastest in truth, but both its chunks in the probe launch were slowed
        // down (another process took the core); as a finalist it gets a whole launch.
        let (done, _) = probe(&t, |w| match w {
            8 if noisy.get() > 0 => {
                noisy.set(noisy.get() - 1);
                2.5
            }
            8 => 1.0,
            16 => 1.5,
            _ => 3.0,
        });
        assert_eq!(done.shape.lanes, 8);
    }

    #[test]
    fn a_finalist_slowed_in_one_round_is_chosen_by_the_other() {
        let t = Tuner::new(None);
        let calls = std::cell::Cell::new(0);
        // 8 lanes is fastest, but its first whole launch (its third timing, after the
        // probe's two chunks) fell into a slow stretch: slower than 16 lanes' best.
        let (done, _) = probe(&t, |w| match w {
            8 => {
                calls.set(calls.get() + 1);
                if calls.get() == 3 { 3.0 } else { 1.0 }
            }
            16 => 1.5,
            _ => 2.0,
        });
        assert_eq!(calls.get(), 2 + FINAL_ROUNDS);
        assert_eq!(done.shape.lanes, 8);
    }

    #[test]
    fn a_probe_counts_each_shapes_fastest_chunk() {
        let t = Tuner::new(None);
        let plan = t.next(&key(), shapes);
        // Each shape's second chunk is 4x slower (noise): the first chunks decide.
        let timed = timings(&plan, |w| if w == 16 { 1.0 } else { 2.0 }, 4.0);
        assert!(t.record(&key(), &timed).is_none());
        assert_eq!(t.next(&key(), shapes), time(16));
    }

    #[test]
    fn a_candidate_one_noisy_process_left_out_of_the_finalists_gets_in_at_a_check() {
        let dir = tempfile::tempdir().unwrap();
        // 16 lanes is fastest, but the first process's probe timed it while the core was
        // shared: it was not a finalist, so it could not be chosen.
        let (first, plans) = probe(&tuner(&dir), |w| match w {
            4 => 2.0,
            8 => 1.5,
            16 => 9.0,
            _ => 3.0,
        });
        assert_eq!(first.shape.lanes, 8);
        assert!(!plans.contains(&time(16)));
        // The next process probes every candidate again and times 16 lanes undisturbed.
        let (second, plans) = probe(&tuner(&dir), |w| match w {
            16 => 1.0,
            8 => 1.5,
            _ => 2.0,
        });
        assert_eq!(plans[..2], [time(8), LaunchPlan::Probe(shapes())]);
        assert_eq!(
            (second.shape.lanes, second.source),
            (16, ShapeSource::Probed)
        );
        // A third process slowed down throughout keeps it: each shape's best time counts.
        let (third, _) = probe(&tuner(&dir), |w| 3.0 * w as f64);
        assert_eq!((third.shape.lanes, third.source), (16, ShapeSource::Cached));
        let LaunchPlan::Run(c) = tuner(&dir).next(&key(), shapes) else {
            panic!("checked {CHECKS} times: used as it is")
        };
        assert_eq!((c.shape.lanes, c.source), (16, ShapeSource::Cached));
    }

    #[test]
    fn corrupt_or_foreign_entries_are_ignored_and_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let t = tuner(&dir);
        probe(&t, |w| w as f64);
        let file = t.file(&key()).unwrap();
        let good = std::fs::read_to_string(&file).unwrap();
        assert!(parse_entry(&good, &entry_key(&key())).is_some());
        // Measured again: a probe of every candidate first (a check of a good entry times
        // the cached choice first).
        let probes = |text: &str| {
            std::fs::write(&file, text).unwrap();
            matches!(tuner(&dir).next(&key(), shapes), LaunchPlan::Probe(p) if p == shapes())
        };
        assert!(good.contains("\nfinal portable 4 4e0\n"), "{good}");
        assert!(good.contains("\nprobe portable 8 8e0\n"), "{good}");
        for bad in [
            good.replace(HEADER, "something else"),
            good.replace("eagle host tuning v4", "eagle host tuning v3"),
            good.replace("kernel=k", "kernel=other"),
            good.replace("final portable 4 ", "final portable 5 "),
            good.replace("final portable 4 ", "final portable x "),
            good.replace("final portable 4 ", "best portable 4 "),
            good.replace("final portable 4 ", "portable 4 "),
            good.replace("probe portable 8 ", "probe portable 5 "),
            good.replace(" 4e0", " -4e0"),
            good.replace(" 4e0", " NaN"),
            good.replace(" 4e0", ""),
            good.replace(" 4e0", " 4e0 1"),
            good.replace("checks 1", "checks x"),
            good.replace("checks 1", "checks 0"),
            good.lines()
                .filter(|l| !l.starts_with("final"))
                .collect::<Vec<_>>()
                .join("\n"),
            good[..good.len() / 2].to_owned(),
            String::from_utf8_lossy(&[0xff, 0xfe, 0]).into_owned(),
            // A shape that is not a candidate (e.g. from a build with other widths).
            good.replace("final portable 4 ", "final portable 32 "),
            good.replace("probe portable 8 ", "probe portable 32 "),
        ] {
            assert!(probes(&bad), "{bad:?} was used");
        }
        assert!(!probes(&good));
        assert!(!probes(
            &good.replace("checks 1", &format!("checks {CHECKS}"))
        ));
    }

    /// Every folder and file under `root`, with its mode, sorted by path.
    fn tree(root: &std::path::Path) -> Vec<(String, bool, u32)> {
        use std::os::unix::fs::MetadataExt;
        let mut out = Vec::new();
        let mut todo = vec![root.to_path_buf()];
        while let Some(p) = todo.pop() {
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let name = p.strip_prefix(root).unwrap().display().to_string();
            out.push((name, meta.is_dir(), meta.mode() & 0o7777));
            if meta.is_dir() {
                todo.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            }
        }
        out.sort();
        out
    }

    fn chmod(p: &std::path::Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_fresh_cache_folder_is_0700_and_every_entry_0600() {
        let tmp = tempfile::tempdir().unwrap();
        // Not there yet: the tuner makes it (and its parent), as a first run does.
        let root = tmp.path().join("made/eagle");
        let t = Tuner::new(Some(root.clone()));
        let (done, _) = probe(&t, |w| if w == 8 { 1.0 } else { 2.0 });
        assert_eq!(done.shape.lanes, 8);
        crate::peak::store_for_test(&root, 2.5e10);
        assert_eq!(crate::peak::load_for_test(&root), Some(2.5e10));
        let lanes = format!("host/{}", file_name(&key()));
        let peak = format!("host/{}", crate::peak::file_name_for_test());
        let mut want = vec![
            (String::new(), true, 0o700),
            ("host".to_owned(), true, 0o700),
            (lanes.clone(), false, 0o600),
            (peak, false, 0o600),
        ];
        want.sort();
        assert_eq!(tree(&root), want, "no temp files, nothing else");
        assert_eq!(
            tree(&tmp.path().join("made"))[0],
            (String::new(), true, 0o700)
        );
        // A rewrite (the next process's check) is a new 0600 file, even over a 0644 one.
        chmod(&root.join(&lanes), 0o644);
        let (again, _) = probe(&tuner_at(&root), |w| if w == 8 { 1.0 } else { 2.0 });
        assert_eq!((again.shape.lanes, again.source), (8, ShapeSource::Cached));
        assert_eq!(tree(&root), want);
        assert!(t.take_notes().is_empty());
    }

    fn tuner_at(root: &std::path::Path) -> Tuner {
        Tuner::new(Some(root.to_path_buf()))
    }

    #[test]
    fn a_cache_folder_others_may_write_is_not_used_nor_written_and_noted_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("eagle");
        let fast8 = |w| if w == 8 { 1.0 } else { 2.0 };
        // An entry checked CHECKS times: a new process would use it without measuring.
        for _ in 0..CHECKS {
            probe(&tuner_at(&root), fast8);
        }
        let file = tuner_at(&root).file(&key()).unwrap();
        let good = std::fs::read_to_string(&file).unwrap();
        let LaunchPlan::Run(c) = tuner_at(&root).next(&key(), shapes) else {
            panic!("a trusted entry is used")
        };
        assert_eq!(c.source, ShapeSource::Cached);
        let host = root.join(HOST_DIR);
        for (what, path, mode) in [
            ("cache folder", &root, 0o777),
            ("cache folder", &root, 0o1777),
            ("cache folder", &root, 0o720),
            ("tuning folder", &host, 0o777),
            ("tuning folder", &host, 0o702),
        ] {
            chmod(path, mode);
            let before = tree(&root);
            let t = tuner_at(&root);
            // Measured as if there were no entry: a probe of every candidate first, and
            // 16 lanes (fastest now) chosen as a fresh measurement, not the cached 8.
            let first = t.next(&key(), shapes);
            assert_eq!(
                first,
                LaunchPlan::Probe(shapes()),
                "{what} {mode:o} was used"
            );
            let (done, plans) = probe(&t, |w| if w == 16 { 1.0 } else { 2.0 });
            assert_eq!(plans[0], LaunchPlan::Probe(shapes()), "{what} {mode:o}");
            assert_eq!(
                (done.shape.lanes, done.source),
                (16, ShapeSource::Probed),
                "{what} {mode:o}"
            );
            // Nothing written there.
            assert_eq!(tree(&root), before, "{what} {mode:o}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), good);
            // One note (the load's and the store's refusal are the same reason).
            let notes = t.take_notes();
            assert_eq!(notes.len(), 1, "{what} {mode:o}: {notes:?}");
            assert!(
                notes[0].starts_with("host tuning cache: ")
                    && notes[0].contains(&format!(
                        "{} is writable by group or others",
                        path.display()
                    ))
                    && notes[0].contains(&format!("(mode {mode:04o})"))
                    && notes[0].contains("measured again"),
                "{notes:?}"
            );
            assert!(t.take_notes().is_empty(), "taken");
            chmod(path, 0o700);
        }
        // An entry others may write is not used either, but its folder is ours: it is
        // replaced by a private one.
        chmod(&file, 0o666);
        let t = tuner_at(&root);
        let (done, plans) = probe(&t, |w| if w == 16 { 1.0 } else { 2.0 });
        assert_eq!(plans[0], LaunchPlan::Probe(shapes()));
        assert_eq!((done.shape.lanes, done.source), (16, ShapeSource::Probed));
        let notes = t.take_notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("(mode 0666)"), "{notes:?}");
        assert_eq!(
            tree(&root).iter().filter(|e| e.2 != 0o600 && !e.1).count(),
            0
        );
        assert!(
            std::fs::read_to_string(&file)
                .unwrap()
                .contains("checks 1\n")
        );
        // An entry or a folder another user owns (only root can make them: skipped
        // otherwise; the rule itself is private_fs's `what_another_user_owns_is_refused`).
        if private_fs::euid() == 0 {
            let nobody = Some(65534);
            for path in [&file, &host, &root] {
                std::os::unix::fs::chown(path, nobody, nobody).unwrap();
                let before = tree(&root);
                let t = tuner_at(&root);
                let (_, plans) = probe(&t, fast8);
                assert_eq!(plans[0], LaunchPlan::Probe(shapes()), "{path:?}");
                let notes = t.take_notes();
                assert_eq!(notes.len(), 1, "{notes:?}");
                assert!(notes[0].contains("owned by uid 65534"), "{notes:?}");
                if path != &file {
                    assert_eq!(tree(&root), before, "nothing written in {path:?}");
                }
                std::os::unix::fs::chown(path, Some(0), Some(0)).unwrap();
            }
        } else {
            println!("skipped (one case): chown needs root");
        }
        // A fresh folder others may write: nothing is made inside it.
        let open = tmp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        chmod(&open, 0o777);
        let t = tuner_at(&open);
        probe(&t, fast8);
        assert_eq!(tree(&open), [(String::new(), true, 0o777)]);
        assert_eq!(t.take_notes().len(), 1);
    }

    #[test]
    fn candidates_too_small_to_time_are_probed_again() {
        let t = Tuner::new(None);
        let all = t.next(&key(), shapes);
        let LaunchPlan::Probe(shapes_probed) = &all else {
            panic!()
        };
        let tiny: Vec<ProbeTiming> = shapes_probed
            .iter()
            .map(|&shape| ProbeTiming {
                shape,
                secs: 1e-6,
                lane_steps: MIN_PROBE_STEPS - 1,
                whole: false,
            })
            .collect();
        assert!(t.record(&key(), &tiny).is_none());
        assert_eq!(t.next(&key(), shapes), all);
        // Chunks too small one by one count together when they are enough.
        let two: Vec<ProbeTiming> = tiny.iter().chain(&tiny).copied().collect();
        assert!(t.record(&key(), &two).is_none());
        assert_eq!(t.next(&key(), shapes), time(4));
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
        // AVX2's 8 vectors of f32 (64 lanes) are not compiled.
        assert!(!f32s.contains(&Shape {
            isa: Isa::Avx2,
            lanes: 64
        }));
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
        // The portable loops' candidates are among the widths they are compiled for.
        for bytes in [4, 8] {
            let p = candidates(Isa::Portable, bytes, false);
            assert!(!p.is_empty());
            assert!(
                p.iter()
                    .all(|s| Isa::Portable.lane_widths().contains(&s.lanes))
            );
        }
    }
}
