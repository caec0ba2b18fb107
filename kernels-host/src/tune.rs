//! `lanes: auto`: the host team picks its launch shape (instruction set x lane width) by
//! measuring. Results are bit-identical for every shape, so the first launches of a run
//! can be probes: each does its share of the run's work at one candidate shape and is timed
//! per issued sample-step; the fastest is kept for the rest of the run and remembered, in
//! this process and on disk (per kernel, element type, CPU model, instruction sets and
//! thread count), so the next process starts tuned.

use crate::Isa;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// How a lane group is laid out: the instruction set its loop is compiled for and the
/// samples it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// Candidates timed again in the second round (the fastest of the first; each keeps its
/// best time, since noise on a shared machine only slows a launch down: one slowed probe
/// should not decide).
const CONFIRM: usize = 3;

/// Fewest issued sample-steps a probe launch needs to be timed (below it the launch's
/// fixed costs dominate and the timing says nothing about the shape).
const MIN_PROBE_STEPS: u64 = 20_000;

/// What a team knows about one kernel's shapes.
#[derive(Clone, Debug)]
enum State {
    /// Candidates and the best seconds per issued sample-step each measured so far.
    Probing {
        candidates: Vec<Shape>,
        timed: Vec<Option<f64>>,
        confirmed: usize,
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

    /// The shape for the next launch of `key`'s kernel: the decided one, or the next
    /// candidate to probe (`ShapeSource::Probing`).
    pub fn next(&self, key: &TuneKey, candidates: impl FnOnce() -> Vec<Shape>) -> ShapeChoice {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let state = states.entry(key.clone()).or_insert_with(|| {
            let candidates = candidates();
            match self.load(key, &candidates) {
                Some(s) => State::Chosen(s, ShapeSource::Cached),
                None => State::Probing {
                    timed: vec![None; candidates.len()],
                    candidates,
                    confirmed: 0,
                },
            }
        });
        match state {
            State::Chosen(shape, source) => ShapeChoice {
                shape: *shape,
                source: *source,
            },
            State::Probing {
                candidates,
                timed,
                confirmed,
            } => {
                let i = match timed.iter().position(Option::is_none) {
                    Some(i) => i,
                    // Second round: the fastest ones again, in order.
                    None => ranked(timed)[*confirmed % CONFIRM],
                };
                ShapeChoice {
                    shape: candidates[i],
                    source: ShapeSource::Probing,
                }
            }
        }
    }

    /// Records a launch at `choice` that took `secs` for `lane_steps` issued sample-steps;
    /// once every candidate is timed (and the fastest confirmed) the best is chosen, stored,
    /// and returned as `Probed`.
    pub fn record(
        &self,
        key: &TuneKey,
        choice: ShapeChoice,
        secs: f64,
        lane_steps: u64,
    ) -> Option<ShapeChoice> {
        if choice.source != ShapeSource::Probing || lane_steps < MIN_PROBE_STEPS {
            return None;
        }
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        let Some(State::Probing {
            candidates,
            timed,
            confirmed,
        }) = states.get_mut(key)
        else {
            return None;
        };
        let i = candidates.iter().position(|&s| s == choice.shape)?;
        let rate = secs / lane_steps as f64;
        let first_round_done = timed.iter().all(Option::is_some);
        timed[i] = Some(timed[i].map_or(rate, |t| t.min(rate)));
        if first_round_done {
            *confirmed += 1;
        }
        let confirm = CONFIRM.min(candidates.len().saturating_sub(1));
        if !timed.iter().all(Option::is_some) || *confirmed < confirm {
            return None;
        }
        let best = candidates[ranked(timed)[0]];
        states.insert(key.clone(), State::Chosen(best, ShapeSource::Measured));
        drop(states);
        self.store(key, best);
        Some(ShapeChoice {
            shape: best,
            source: ShapeSource::Probed,
        })
    }

    /// A choice an earlier process stored for `key`, if it is one of `candidates`.
    fn load(&self, key: &TuneKey, candidates: &[Shape]) -> Option<Shape> {
        let text = std::fs::read_to_string(self.file(key)?).ok()?;
        let shape = parse_entry(&text, &entry_key(key))?;
        candidates.contains(&shape).then_some(shape)
    }

    /// Stores `shape` for `key` (a failure only costs the next process its probes).
    fn store(&self, key: &TuneKey, shape: Shape) {
        let Some(path) = self.file(key) else { return };
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let text = format!(
            "{HEADER}\n{}\n{} {}\n",
            entry_key(key),
            shape.isa.name(),
            shape.lanes
        );
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
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
const HEADER: &str = "eagle host tuning v1";

/// The entry's key line: everything the choice depends on.
fn entry_key(key: &TuneKey) -> String {
    format!(
        "kernel={} elem={} threads={} cpu={} isa={} eagle={}",
        key.kernel,
        key.elem,
        key.threads,
        cpu_model(),
        Isa::detect().name(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The shape an entry holds, when its header and key are `key`'s (else `None`: corrupt or
/// foreign entries are ignored and measured again).
fn parse_entry(text: &str, key: &str) -> Option<Shape> {
    let mut lines = text.lines();
    if lines.next()? != HEADER || lines.next()? != key {
        return None;
    }
    let mut words = lines.next()?.split(' ');
    let isa = Isa::from_name(words.next()?)?;
    let lanes: usize = words.next()?.parse().ok()?;
    (isa.available() && crate::LANE_WIDTHS.contains(&lanes) && lines.next().is_none())
        .then_some(Shape { isa, lanes })
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
fn fnv1a(s: &str) -> u64 {
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

    /// Runs probes with the given seconds per step by width until decided.
    fn probe(t: &Tuner, rate: impl Fn(usize) -> f64) -> (ShapeChoice, usize) {
        for n in 1..20 {
            let c = t.next(&key(), shapes);
            assert_eq!(c.source, ShapeSource::Probing);
            if let Some(done) = t.record(&key(), c, rate(c.shape.lanes) * 1e5, 100_000) {
                return (done, n);
            }
        }
        panic!("never decided");
    }

    #[test]
    fn probes_every_candidate_confirms_the_fastest_and_remembers_it() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tuner::new(Some(dir.path().to_path_buf()));
        let (done, launches) = probe(&t, |w| if w == 8 { 1.0 } else { 2.0 });
        assert_eq!((done.shape.lanes, done.source), (8, ShapeSource::Probed));
        assert_eq!(
            launches,
            3 + CONFIRM.min(2),
            "3 candidates, then the 2 others than the worst again"
        );
        let again = t.next(&key(), shapes);
        assert_eq!(
            (again.shape.lanes, again.source),
            (8, ShapeSource::Measured)
        );
        // A new process (a new tuner on the same folder) starts from the cache.
        let t2 = Tuner::new(Some(dir.path().to_path_buf()));
        let c = t2.next(&key(), shapes);
        assert_eq!((c.shape.lanes, c.source), (8, ShapeSource::Cached));
        // Another thread count is another entry.
        let other = TuneKey {
            threads: 3,
            ..key()
        };
        assert_eq!(t2.next(&other, shapes).source, ShapeSource::Probing);
    }

    #[test]
    fn a_noisy_first_probe_is_corrected_by_the_second_round() {
        let t = Tuner::new(None);
        let noisy = std::cell::Cell::new(true);
        // 8 lanes is fastest in truth, but its first probe was slowed down (another
        // process took the core); the second round times it again and keeps its best.
        let (done, _) = probe(&t, |w| match w {
            8 if noisy.replace(false) => 2.5,
            8 => 1.0,
            16 => 1.5,
            _ => 3.0,
        });
        assert_eq!(done.shape.lanes, 8);
    }

    #[test]
    fn corrupt_or_foreign_entries_are_ignored_and_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let t = Tuner::new(Some(dir.path().to_path_buf()));
        probe(&t, |w| w as f64);
        let file = t.file(&key()).unwrap();
        let good = std::fs::read_to_string(&file).unwrap();
        assert!(parse_entry(&good, &entry_key(&key())).is_some());
        for bad in [
            good.replace(HEADER, "something else"),
            good.replace("kernel=k", "kernel=other"),
            good.replace(" 4\n", " 5\n"),
            good.replace(" 4\n", " x\n"),
            good[..good.len() / 2].to_owned(),
            String::from_utf8_lossy(&[0xff, 0xfe, 0]).into_owned(),
        ] {
            std::fs::write(&file, &bad).unwrap();
            let c = Tuner::new(Some(dir.path().to_path_buf())).next(&key(), shapes);
            assert_eq!(c.source, ShapeSource::Probing, "{bad:?} was used");
        }
        // A shape that is not a candidate (e.g. from a build with other widths) too.
        std::fs::write(&file, good.replace(" 4\n", " 32\n")).unwrap();
        let c = Tuner::new(Some(dir.path().to_path_buf())).next(&key(), shapes);
        assert_eq!(c.source, ShapeSource::Probing);
    }

    #[test]
    fn tiny_launches_are_not_timed() {
        let t = Tuner::new(None);
        let c = t.next(&key(), shapes);
        assert!(t.record(&key(), c, 1e-6, MIN_PROBE_STEPS - 1).is_none());
        assert_eq!(t.next(&key(), shapes), c, "the same candidate again");
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
