//! How a run is driven: step cap, steps per launch, compaction and reorder.

use crate::error::Error;
use hawk::Steps;
use std::fmt;
use std::time::Duration;

/// Steps per launch that `Steps::Auto` uses on the host team while no sample has finished.
///
/// The host team freezes each sample at the exact step it terminates and skips lane groups
/// that are all done, so a long launch costs little.
pub const AUTO_STEPS_HOST: u32 = 64;

/// Steps per launch that `Steps::Auto` uses once some samples have finished and others
/// still run: shorter launches let compaction keep lane groups full of running samples.
pub const AUTO_STEPS_HOST_FINISHING: u32 = 16;

/// When finished samples are moved out of the active set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Compaction {
    /// Never: every launch passes over every slot (finished lane groups are skipped).
    Off,
    /// When at least an eighth of the slots in the active set have finished (default). On
    /// the host team also sooner, once the finished slots' share of the last launch's time
    /// is at least what the last compaction pass took (see [`Compaction::due_timed`]).
    #[default]
    Auto,
    /// After every launch in which any sample finished.
    Always,
}

impl fmt::Display for Compaction {
    /// `off`, `auto` or `always`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compaction::Off => "off",
            Compaction::Auto => "auto",
            Compaction::Always => "always",
        })
    }
}

/// How active samples are ordered so that similar ones share a SIMD lane group.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Reorder {
    /// Keep the caller's order (default).
    #[default]
    Off,
    /// Sort samples by the value of this per-sample plane (ascending, stable), once before
    /// the first launch; compaction keeps the order. NaN keys (of either sign) sort after
    /// every number, in the caller's order; `-0.0` sorts before `0.0`. Any key is accepted:
    /// the order never changes results, only which samples share a lane group.
    ByPlane(String),
}

impl fmt::Display for Reorder {
    /// `off` or ``by plane `x` ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reorder::Off => f.write_str("off"),
            Reorder::ByPlane(p) => write!(f, "by plane `{p}`"),
        }
    }
}

/// The reorder's order of two keys: a total order (so sorting never panics and always
/// gives the same permutation): numbers by [`f64::total_cmp`] (`-inf < ... < -0.0 < 0.0 <
/// ... < inf`), then every NaN, equal to each other (a stable sort keeps their caller
/// order). Keys are widened to `f64`, which keeps `f32`'s order.
pub(crate) fn reorder_cmp<R: hawk::Real>(a: R, b: R) -> std::cmp::Ordering {
    let (a, b) = (a.to_f64(), b.to_f64());
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.total_cmp(&b),
        (a_nan, b_nan) => a_nan.cmp(&b_nan),
    }
}

/// How the device team drives its launches (the host team ignores it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Arm {
    /// A host-driven loop: one launch at a time, the active count read back after each.
    #[default]
    Simulate,
    /// Each launch (zero the counter, step) captured once as a graph and replayed; capture
    /// and instantiate time is `build_s`, a later `run()` with the same shapes replays.
    Graph,
    /// The whole until-done loop as one graph with a conditional WHILE node whose condition
    /// the device sets after each launch: no host round trip per launch. Compaction does not
    /// happen inside the loop. Falls back to `Graph` (with a note in the report) where the
    /// device cannot build WHILE nodes (driver older than CUDA 12.3, no `libcudadevrt`).
    GraphWhile,
}

impl Arm {
    /// `"simulate"`, `"graph"` or `"graph_while"`.
    pub fn name(self) -> &'static str {
        match self {
            Arm::Simulate => "simulate",
            Arm::Graph => "graph",
            Arm::GraphWhile => "graph_while",
        }
    }
}

impl fmt::Display for Arm {
    /// [`Arm::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the device team compacts finished samples away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DeviceCompaction {
    /// An index list of active samples (prefix sum on the device); later launches use the
    /// indexed entry `hawk_<name>_indexed` over the full planes (default).
    #[default]
    IndexList,
    /// Active samples gathered into dense planes; launches run over those; everything is
    /// scattered back to the caller's order at the end of the run.
    Gather,
}

impl DeviceCompaction {
    /// `"index_list"` or `"gather"`.
    pub fn name(self) -> &'static str {
        match self {
            DeviceCompaction::IndexList => "index_list",
            DeviceCompaction::Gather => "gather",
        }
    }
}

impl fmt::Display for DeviceCompaction {
    /// [`DeviceCompaction::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// When a run saves points (a trajectory): see [`SaveAt`].
#[derive(Clone, Debug)]
pub enum SaveWhen {
    /// After every `m` global steps: points after steps `m, 2m, ...` up to `max_steps`
    /// (`max_steps / m` points). For fixed-step kernels; every launch advances all its
    /// samples from the same step, so this costs one scalar test per step.
    Every(u64),
    /// At these times (strictly increasing, finite), against the kernel's time plane
    /// (`#[kernel(time = t)]`): point `j` is the first state whose time is `>= times[j]`
    /// (the initial state where `times[j] <=` the initial time). Kernels with a `NextSave`
    /// argument (the built-in adaptive ones) land on each time exactly; fixed-step kernels
    /// save the first step at or past it.
    Times(Vec<f64>),
}

impl PartialEq for SaveWhen {
    /// Times compare by their bits (so `Eq` holds).
    fn eq(&self, o: &Self) -> bool {
        match (self, o) {
            (SaveWhen::Every(a), SaveWhen::Every(b)) => a == b,
            (SaveWhen::Times(a), SaveWhen::Times(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            _ => false,
        }
    }
}
impl Eq for SaveWhen {}

/// Save points: when, and which mutable planes (default: all of them). The points land in
/// the runner's [`Trajectory`](crate::Trajectory), indexed by the caller's sample order.
///
/// ```
/// use eagle_runtime::{Options, SaveAt};
/// // x, y and z after steps 10, 20, ..., 1000: 100 points per sample.
/// let every = Options::new(1000).save(SaveAt::every(10).planes(&["x", "y", "z"]));
/// // The state at t = 0.25, 0.5, 0.75 and 1 (every mutable plane).
/// let at = Options::new(100_000).save(SaveAt::times(&[0.25, 0.5, 0.75, 1.0]));
/// # let _ = (every, at);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SaveAt {
    /// When points are saved.
    pub when: SaveWhen,
    /// The mutable planes saved, by name; `None`: every mutable plane, in declaration order.
    pub planes: Option<Vec<String>>,
}

impl SaveAt {
    /// A point after every `m` steps (see [`SaveWhen::Every`]).
    pub fn every(m: u64) -> Self {
        SaveAt {
            when: SaveWhen::Every(m),
            planes: None,
        }
    }
    /// A point at each of `times` (see [`SaveWhen::Times`]); checked by `until_done`
    /// (strictly increasing, finite, at least one).
    pub fn times(times: &[f64]) -> Self {
        SaveAt {
            when: SaveWhen::Times(times.to_vec()),
            planes: None,
        }
    }
    /// Saves only these mutable planes or components (`"x"`, `"u[3]"`; at most 64; they are
    /// stored in the kernel's declaration order).
    pub fn planes(mut self, names: &[&str]) -> Self {
        self.planes = Some(names.iter().map(|n| (*n).to_owned()).collect());
        self
    }
}

/// Settings of an until-done run: `Options::new(max_steps)` gives the defaults (the
/// kernel's steps setting, `Compaction::Auto`, no reorder, the `Simulate` arm, index-list
/// compaction on the device, no time limit, no progress bar), and each builder method
/// changes one setting.
///
/// ```
/// use eagle_runtime::{Arm, Compaction, DeviceCompaction, Options, Reorder};
/// use hawk::Steps;
/// use std::time::Duration;
/// let options = Options::new(10_000)
///     .steps(Steps::Fixed(32)) // 32 steps per launch instead of the kernel's setting
///     .compaction(Compaction::Always)
///     .reorder(Reorder::ByPlane("omega".into())) // similar samples share lane groups
///     .arm(Arm::Graph) // device: replay a captured CUDA graph per launch
///     .device_compaction(DeviceCompaction::Gather)
///     .time_limit(Duration::from_secs(60)); // stop at a launch boundary; resume() goes on
/// assert_eq!(options.max_steps, 10_000);
/// assert_eq!(options.steps, Some(Steps::Fixed(32)));
/// assert!(!options.progress); // the progress bar is off unless asked for
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Stop after this many steps even if samples are still running (at least 1).
    pub max_steps: u64,
    /// Steps per launch; `None` takes the kernel's `#[kernel(steps = ...)]` setting.
    pub steps: Option<Steps>,
    /// Compaction policy.
    pub compaction: Compaction,
    /// Reorder policy.
    pub reorder: Reorder,
    /// Device arm (default `Simulate`, a host-driven loop of launches; choose `Graph` or
    /// `GraphWhile` to cut launch overhead on a GPU).
    pub arm: Arm,
    /// Device compaction strategy.
    pub device_compaction: DeviceCompaction,
    /// Wall-time limit of one `run()` or `resume()` call, checked at launch boundaries after
    /// at least one launch (so every call makes progress); `None` (default) for no limit.
    pub time_limit: Option<Duration>,
    /// Show a progress bar on stderr (active samples, steps, launches, elapsed); off by
    /// default.
    pub progress: bool,
    /// Save points during the run (a trajectory); `None` (default) saves nothing.
    pub save: Option<SaveAt>,
    /// Most bytes the saved points may take (values and one status byte per point and
    /// sample); `None`: 1 GiB. Either way also the machine's limits (available host memory,
    /// and free device memory on a device team). A larger trajectory is refused before
    /// anything runs, with a message naming its size and how to shrink it.
    pub trajectory_limit: Option<u64>,
}

/// A step cap with the default options: `until_done(&deployed, 10_000, planes)`.
impl From<u64> for Options {
    fn from(max_steps: u64) -> Self {
        Options::new(max_steps)
    }
}

impl Options {
    /// The defaults with a step cap.
    pub fn new(max_steps: u64) -> Self {
        Self {
            max_steps,
            steps: None,
            compaction: Compaction::default(),
            reorder: Reorder::default(),
            arm: Arm::default(),
            device_compaction: DeviceCompaction::default(),
            time_limit: None,
            progress: false,
            save: None,
            trajectory_limit: None,
        }
    }
    /// Saves points during the run (see [`SaveAt`]).
    pub fn save(mut self, save: SaveAt) -> Self {
        self.save = Some(save);
        self
    }
    /// Caps the bytes of saved points (see [`Options::trajectory_limit`](Options#structfield.trajectory_limit)).
    pub fn trajectory_limit(mut self, bytes: u64) -> Self {
        self.trajectory_limit = Some(bytes);
        self
    }
    /// Sets the step cap.
    pub fn max_steps(mut self, max_steps: u64) -> Self {
        self.max_steps = max_steps;
        self
    }
    /// Sets a wall-time limit per `run()`/`resume()` call.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }
    /// Turns the progress bar on or off.
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }
    /// Sets a fixed number of steps per launch (or `Steps::Auto`).
    pub fn steps(mut self, steps: Steps) -> Self {
        self.steps = Some(steps);
        self
    }
    /// Sets the compaction policy.
    pub fn compaction(mut self, c: Compaction) -> Self {
        self.compaction = c;
        self
    }
    /// Sets the reorder policy.
    pub fn reorder(mut self, r: Reorder) -> Self {
        self.reorder = r;
        self
    }

    /// Sets the device arm.
    pub fn arm(mut self, a: Arm) -> Self {
        self.arm = a;
        self
    }
    /// Sets the device compaction strategy.
    pub fn device_compaction(mut self, c: DeviceCompaction) -> Self {
        self.device_compaction = c;
        self
    }

    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.max_steps == 0 {
            return Err(Error::MaxSteps);
        }
        if self.steps == Some(Steps::Fixed(0)) {
            return Err(Error::FixedSteps);
        }
        Ok(())
    }
}

impl Compaction {
    /// Should a work set of `slots` slots, `active` of them still running, be compacted?
    pub fn due(self, slots: usize, active: usize) -> bool {
        let finished = slots - active;
        match self {
            Compaction::Off => false,
            Compaction::Always => finished > 0,
            Compaction::Auto => finished > 0 && finished * 8 >= slots,
        }
    }

    /// [`Compaction::due`], where `Auto` also weighs time: after a launch that took
    /// `launch_s` seconds, the finished slots' share of it is what every further launch
    /// loses to them, so once that share is at least `pass_s` (the last compaction pass's
    /// time; `None` before the first) a pass pays for itself within one launch. Never
    /// later than the count rule.
    pub fn due_timed(
        self,
        slots: usize,
        active: usize,
        launch_s: f64,
        pass_s: Option<f64>,
    ) -> bool {
        let pays = |pass: f64| (slots - active) as f64 / slots as f64 * launch_s >= pass;
        self.due(slots, active)
            || (self == Compaction::Auto && active < slots && pass_s.is_some_and(pays))
    }
}

/// Options resolved against a kernel: what the launch loop of any team follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Step cap.
    pub max_steps: u64,
    /// Steps per launch (the kernel's setting unless the options override it).
    pub steps: Steps,
    /// Compaction policy.
    pub compaction: Compaction,
    /// Index of the reorder key among the per-sample planes, if any.
    pub reorder_key: Option<usize>,
    /// Device arm.
    pub arm: Arm,
    /// Device compaction strategy.
    pub device_compaction: DeviceCompaction,
}

impl Plan {
    /// Steps for the next launch, with `left` steps left before `max_steps` and
    /// `finishing` true once some sample has finished.
    pub fn next_k(&self, left: u64, finishing: bool) -> u32 {
        let k = match self.steps {
            Steps::Fixed(k) => k,
            Steps::Auto if finishing => AUTO_STEPS_HOST_FINISHING,
            Steps::Auto => AUTO_STEPS_HOST,
        };
        k.min(u32::try_from(left).unwrap_or(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::{Arm, Compaction, DeviceCompaction, Options, Reorder, reorder_cmp};
    use crate::Error;
    use hawk::Steps;

    #[test]
    fn refusals_and_settings_print_as_users_write_them() {
        let e = Options::new(10).steps(Steps::Fixed(0)).check().unwrap_err();
        assert_eq!(e, Error::FixedSteps);
        assert_eq!(e.to_string(), "steps per launch must be at least 1, got 0");
        assert_eq!(
            Options::new(0).check().unwrap_err().to_string(),
            "max_steps must be at least 1, got 0"
        );
        assert_eq!(Steps::Auto.to_string(), "auto");
        assert_eq!(Steps::Fixed(64).to_string(), "64");
        assert_eq!(Compaction::Always.to_string(), "always");
        assert_eq!(
            Reorder::ByPlane("omega".into()).to_string(),
            "by plane `omega`"
        );
        assert_eq!(Reorder::Off.to_string(), "off");
        assert_eq!(Arm::GraphWhile.to_string(), "graph_while");
        assert_eq!(DeviceCompaction::IndexList.to_string(), "index_list");
    }

    #[test]
    fn reorder_keys_sort_in_a_total_order_with_nan_last() {
        let keys = [
            f64::NAN,
            1.0,
            -f64::NAN,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NAN,
            -1.0,
            f64::MIN_POSITIVE,
        ];
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|&a, &b| reorder_cmp(keys[a], keys[b]));
        // Numbers ascending (-0.0 before 0.0), then the NaNs in the caller's order.
        assert_eq!(order, [3, 8, 5, 4, 9, 1, 6, 0, 2, 7]);
        // A total order: antisymmetric and transitive over every triple.
        use std::cmp::Ordering::Greater;
        for &a in &keys {
            for &b in &keys {
                assert_eq!(reorder_cmp(a, b), reorder_cmp(b, a).reverse(), "{a} {b}");
                for &c in &keys {
                    let (ab, bc) = (reorder_cmp(a, b), reorder_cmp(b, c));
                    if ab != Greater && bc != Greater {
                        assert_ne!(reorder_cmp(a, c), Greater, "{a} {b} {c}");
                    }
                }
            }
        }
        // f32 keys: the same order.
        let k32: Vec<f32> = keys.iter().map(|&k| k as f32).collect();
        let mut o32: Vec<usize> = (0..k32.len()).collect();
        o32.sort_by(|&a, &b| reorder_cmp(k32[a], k32[b]));
        assert_eq!(o32, order);
    }

    #[test]
    fn auto_compacts_when_a_pass_pays_for_itself_and_never_later_than_the_count_rule() {
        let auto = Compaction::Auto;
        // 10 of 1,000 finished: 1% of a 1 s launch is 10 ms, more than a 5 ms pass...
        assert!(auto.due_timed(1000, 990, 1.0, Some(0.005)));
        // ...but not more than a 20 ms one, and nothing is timed before the first pass.
        assert!(!auto.due_timed(1000, 990, 1.0, Some(0.020)));
        assert!(!auto.due_timed(1000, 990, 1.0, None));
        // The count rule (an eighth finished) holds whatever the times.
        assert!(auto.due_timed(1000, 875, 0.0, Some(1.0)));
        assert!(auto.due_timed(1000, 875, 0.0, None));
        // Nothing finished: nothing to gain.
        assert!(!auto.due_timed(1000, 1000, 1.0, Some(0.0)));
        // Off and Always do not weigh time.
        assert!(!Compaction::Off.due_timed(1000, 500, 1.0, Some(0.0)));
        assert!(Compaction::Always.due_timed(1000, 999, 0.0, Some(1.0)));
    }
}
