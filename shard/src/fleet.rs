//! Every device of a node in one process: a [`Fleet`] of deployed teams, a
//! [`FleetRunner`] that runs one [`Runner`] per device on its own thread over its own
//! contiguous shard of the caller's planes.

use crate::report::{Merged, Part, empty_report, merge_parallel};
use crate::split::{Collected, Ordered, Piece, plane_set, ranges};
use eagle_runtime::{
    Deployed, Deployment, Error, HostConfig, Module, Options, Placement, RunReport, Runner, Status,
    Target, deploy, device_count, until_done,
};
use hawk::{Kernel, PlaneSource};
use hawk_host::HostReal;
use std::ops::Range;
use std::time::Instant;

/// Which devices a [`Fleet`] deploys on.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Devices {
    /// Every CUDA GPU of this machine, one part each; the host team (one part, every
    /// core) when there is none, or the module lacks the kernel.
    #[default]
    Best,
    /// These CUDA GPUs (ordinals, `0..eagle_runtime::device_count()`).
    Cuda(Vec<usize>),
    /// One of `of` processes sharing this node (MPI ranks on one node, `index` the
    /// node-local rank): the GPUs whose ordinal is `index` modulo `of` (so 8 ranks on an
    /// 8-GPU node get one each); without GPUs, the host team on this process's share of
    /// the cores (at least one thread).
    Share {
        /// This process's index among those on the node.
        index: usize,
        /// Processes on the node.
        of: usize,
    },
    /// The host team, one part.
    Host(HostConfig),
    /// `n` emulated devices: the device team's orchestration on the CPU, each standing for
    /// a GPU (tests; slow).
    Emulated(usize),
    /// Any teams, one part each.
    Teams(Vec<Target>),
}

impl Devices {
    /// The team of each part.
    pub fn choices(&self) -> Vec<Target> {
        match self {
            Devices::Best if device_count() > 0 => {
                (0..device_count()).map(Target::Device).collect()
            }
            Devices::Best => vec![Target::Host(HostConfig::default())],
            Devices::Cuda(list) => list.iter().map(|&i| Target::Device(i)).collect(),
            Devices::Share { index, of } => {
                let of = (*of).max(1);
                let gpus: Vec<Target> = (0..device_count())
                    .filter(|g| g % of == index % of)
                    .map(Target::Device)
                    .collect();
                if gpus.is_empty() {
                    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
                    vec![Target::Host(HostConfig {
                        threads: Some((cores / of).max(1)),
                        ..HostConfig::default()
                    })]
                } else {
                    gpus
                }
            }
            Devices::Host(cfg) => vec![Target::Host(cfg.clone())],
            Devices::Emulated(n) => vec![Target::Emulated; *n],
            Devices::Teams(t) => t.clone(),
        }
    }
}

/// A kernel deployed on several teams (the devices of a node), each running a contiguous
/// shard of one ensemble. Shards are sized by the parts' weights (equal by default;
/// measured throughputs via [`Merged::throughputs`]).
#[derive(Clone, Debug)]
pub struct Fleet<K: Kernel> {
    parts: Vec<Deployed<K>>,
    weights: Vec<f64>,
}

/// Compile-time check: a runner can move to its device's thread.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<Runner<'static, hawk::builtin::Oscillator>>();
};

impl<K: Kernel> Fleet<K>
where
    K::Real: HostReal,
{
    /// Deploys `kernel` on each of `devices` with the GPU `module` (what
    /// [`Placement::deploy`] does for [`Devices`]). `Devices::Best` falls back to the host
    /// team when the GPUs cannot run the kernel.
    fn deploy(kernel: K, devices: &Devices, module: Option<Module<'_>>) -> Result<Self, Error> {
        let choices = devices.choices();
        if choices.is_empty() {
            return Err(Error::DeviceUnavailable(format!(
                "no device to deploy on: {devices:?} names none"
            )));
        }
        let deployed: Result<Vec<_>, Error> = choices
            .into_iter()
            .map(|c| deploy(kernel, c, module))
            .collect();
        match deployed {
            Ok(parts) => Ok(Fleet::from_deployed(parts)),
            // The GPUs cannot run it: `Best` on one team says why in its start-up notes.
            Err(_) if *devices == Devices::Best => Ok(Fleet::from_deployed(vec![deploy(
                kernel,
                Target::Best,
                module,
            )?])),
            Err(e) => Err(e),
        }
    }

    /// A fleet over teams deployed by the caller, one part each, equal weights.
    ///
    /// # Panics
    /// When `parts` is empty.
    pub fn from_deployed(parts: Vec<Deployed<K>>) -> Self {
        assert!(
            !parts.is_empty(),
            "a fleet needs at least one deployed team"
        );
        let weights = vec![1.0; parts.len()];
        Fleet { parts, weights }
    }

    /// Shards sized in proportion to `weights` (one per part: a measured throughput,
    /// samples per second, or a device's peak).
    ///
    /// # Panics
    /// When there is not one weight per part, or a weight is not finite and positive.
    pub fn with_weights(mut self, weights: Vec<f64>) -> Self {
        assert_eq!(weights.len(), self.parts.len(), "one weight per part");
        assert!(
            weights.iter().all(|w| w.is_finite() && *w > 0.0),
            "every weight must be finite and positive, got {weights:?}"
        );
        self.weights = weights;
        self
    }

    /// The deployed teams, one per part.
    pub fn parts(&self) -> &[Deployed<K>] {
        &self.parts
    }

    /// The parts' weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Parts (devices).
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// Always `false`: a fleet has at least one part.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The ranges of an `n`-sample ensemble the parts run.
    pub fn ranges(&self, n: usize) -> Vec<Range<usize>> {
        ranges(n, &self.weights)
    }

    pub(crate) fn runners<'a>(
        &self,
        options: Options,
        ordered: Ordered<'a, K::Real>,
    ) -> Result<FleetRunner<'a, K>, Error> {
        let n = ordered.n;
        let ranges = self.ranges(n);
        let (params, pieces) = ordered.cut(&ranges);
        let mut runners = Vec::with_capacity(pieces.len());
        for (deployed, Piece { range, ins, muts }) in self.parts.iter().zip(pieces) {
            let runner = if range.is_empty() {
                None
            } else {
                let set = plane_set::<K>(ins, &params, muts);
                Some(until_done(deployed, options.clone(), set)?)
            };
            runners.push(Shard {
                label: format!("device {} ({})", runners.len(), deployed.team().kind()),
                range,
                runner,
            });
        }
        Ok(FleetRunner { shards: runners, n })
    }
}

impl Placement for Devices {
    type Deployed<K: Kernel> = Fleet<K>;
    fn deploy<K: Kernel>(self, kernel: K, module: Option<Module<'_>>) -> Result<Fleet<K>, Error>
    where
        K::Real: HostReal,
    {
        Fleet::deploy(kernel, &self, module)
    }
}

impl<K: Kernel> Deployment for Fleet<K>
where
    K::Real: HostReal,
{
    type Kernel = K;
    type Runner<'a> = FleetRunner<'a, K>;
    /// A runner per part over its shard of `planes`. The planes are first checked as one
    /// process would check them (the same errors, word for word, and nothing changed);
    /// then cut into contiguous sub-slices (nothing is copied). A part whose shard is empty
    /// gets no runner and reports nothing run.
    fn runner<'a>(
        &self,
        options: Options,
        planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<FleetRunner<'a, K>, Error> {
        let ordered = Collected::collect(planes).check(&self.parts[0], &options, false)?;
        self.runners(options, ordered)
    }
}

struct Shard<'a, K: Kernel> {
    label: String,
    range: Range<usize>,
    runner: Option<Runner<'a, K>>,
}

/// One [`Runner`] per device over its shard; [`FleetRunner::run`] runs them side by side
/// (a thread each) and merges their reports.
pub struct FleetRunner<'a, K: Kernel> {
    shards: Vec<Shard<'a, K>>,
    n: usize,
}

impl<'a, K: Kernel> FleetRunner<'a, K>
where
    K::Real: HostReal,
{
    /// Samples in the ensemble.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always `false`: an empty ensemble is refused.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Each part's range of the ensemble.
    pub fn ranges(&self) -> Vec<Range<usize>> {
        self.shards.iter().map(|s| s.range.clone()).collect()
    }

    /// Part `i`'s runner (`None` when its shard is empty).
    pub fn runner(&self, i: usize) -> Option<&Runner<'a, K>> {
        self.shards.get(i).and_then(|s| s.runner.as_ref())
    }

    /// Runs every part from its planes' current contents, each on its own thread, and
    /// merges the reports (see [`merge_parallel`]). Results land in the caller's order
    /// (each part owns a contiguous sub-slice): on the host team in the caller's planes, on
    /// a device there until [`FleetRunner::to_host`] (or until the fleet runner is dropped,
    /// which brings them home as [`Runner`]'s drop does).
    ///
    /// On an error the first failing part's error (in part order) is returned, after every
    /// part has stopped; the failing part's planes are as they were, the others' hold their
    /// results (each part's planes are either as before or fully updated).
    pub fn run(&mut self) -> Result<Merged, Error> {
        self.each(|r| r.run())
    }

    /// [`Runner::resume`] on every part that stopped early (cancelled, time limit); parts
    /// that finished report nothing run.
    pub fn resume(&mut self) -> Result<Merged, Error> {
        self.each(|r| match r.resume() {
            Err(Error::NothingToResume) => Ok(empty_report()),
            other => other,
        })
    }

    fn each(
        &mut self,
        f: impl Fn(&mut Runner<'a, K>) -> Result<RunReport, Error> + Sync,
    ) -> Result<Merged, Error> {
        let t0 = Instant::now();
        let timed = |r: &mut Runner<'a, K>| {
            let t = Instant::now();
            f(r).map(|rep| (rep, t.elapsed().as_secs_f64()))
        };
        let busy = self.shards.iter().filter(|s| s.runner.is_some()).count();
        let results: Vec<Option<Result<(RunReport, f64), Error>>> = if busy <= 1 {
            self.shards
                .iter_mut()
                .map(|s| s.runner.as_mut().map(timed))
                .collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .shards
                    .iter_mut()
                    .map(|s| s.runner.as_mut().map(|r| scope.spawn(move || timed(r))))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.map(|h| h.join().expect("a device thread panicked")))
                    .collect()
            })
        };
        let mut parts = Vec::with_capacity(results.len());
        for (s, r) in self.shards.iter().zip(results) {
            let (report, time_s) = match r {
                None => (empty_report(), 0.0),
                Some(Ok(x)) => x,
                Some(Err(e)) => return Err(e),
            };
            parts.push(Part {
                label: s.label.clone(),
                range: s.range.clone(),
                samples: s.range.len(),
                time_s,
                report,
            });
        }
        let reports: Vec<&RunReport> = parts.iter().map(|p| &p.report).collect();
        Ok(Merged {
            report: merge_parallel(&reports),
            parts,
            wall_s: t0.elapsed().as_secs_f64(),
            comm_s: 0.0,
        })
    }

    /// Brings every device's results home (each device on its own thread); a no-op on the
    /// host team. The first error in part order is returned.
    pub fn to_host(&mut self) -> Result<(), Error> {
        let busy: Vec<&mut Runner<'a, K>> = self
            .shards
            .iter_mut()
            .filter_map(|s| s.runner.as_mut())
            .collect();
        if busy.len() <= 1 {
            return busy.into_iter().try_for_each(|r| r.to_host());
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = busy
                .into_iter()
                .map(|r| scope.spawn(move || r.to_host()))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a device thread panicked"))
                .collect::<Result<Vec<()>, Error>>()
                .map(|_| ())
        })
    }

    /// Per-sample status after the last run, in the caller's order.
    pub fn status(&self) -> Vec<Status> {
        self.shards
            .iter()
            .flat_map(|s| s.runner.iter().flat_map(|r| r.status().iter().copied()))
            .collect()
    }

    /// Per-sample terminated flags after the last run, in the caller's order.
    pub fn terminated(&self) -> Vec<bool> {
        self.shards
            .iter()
            .flat_map(|s| s.runner.iter().flat_map(|r| r.terminated().iter().copied()))
            .collect()
    }
}
