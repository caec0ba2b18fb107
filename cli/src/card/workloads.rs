//! The card's workloads: the seed's oscillator, the Lorenz ensemble (RK4 and Fehlberg 7(8),
//! f64 and f32) in the community's benchmark setup, Kepler orbits whose samples live very
//! different lengths, the driven damped pendulum (RK4, f64 and f32), whose steps call
//! `sin` and `cos`, and three models with array planes: Lorenz-96 (40 sites, RK4 and
//! Tsit5), Kuramoto (32 phases, `sin` of every difference) and a 4-32-4 neural ODE whose
//! weights are one shared table; and two stochastic ensembles: geometric Brownian motion
//! for a call price (Euler-Maruyama) and Ornstein-Uhlenbeck (SRA1), whose steps draw their
//! noise from Philox; and two stiff ones: Robertson's kinetics and HIRES (Rodas5P), whose
//! steps solve linear systems.

use super::ensemble::Ensemble;
use super::{Arm, Lifetimes, Row};
use eagle::shard::{Balance, Fleet, Merged, MpiError, MpiJob};
use eagle::{Arm as RunArm, Compaction, DeviceCompaction, HostConfig, Options, Reorder, Target};
use eagle::{Error, RunReport};
use hawk::builtin::{
    GbmEm, HiresRodas5p, KURAMOTO_N, KeplerRk78, KuramotoRk4, LORENZ96_N, Lorenz96Rk4,
    Lorenz96Tsit5, LorenzRk4, LorenzRk4Contracted, LorenzRk4F32, LorenzRk4F32Contracted,
    LorenzRk78, LorenzRk78F32, LorenzVern9, NEURAL_ODE_N, NEURAL_ODE_WEIGHTS, NeuralOdeRk4,
    Oscillator, OscillatorContracted, OuSra1, PendulumRk4, PendulumRk4F32, RobertsonRodas5p,
};
use hawk::{Kernel, LaneArray, Real, Steps};
use hawk_host::{HostReal, count::flops_per_step};
use std::any::Any;
use std::time::{Duration, Instant};

/// A card workload by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// The seed's oscillator (explicit Euler to t = 1, dt = 1e-3).
    Oscillator,
    /// The same, contracted (`#[kernel(contract)]`: fused multiply-adds).
    OscillatorContracted,
    /// Lorenz, RK4 at dt = 1e-3 to t = 1 (1,000 steps), f64.
    LorenzRk4F64,
    /// The same, contracted.
    LorenzRk4F64Contracted,
    /// Lorenz RK4 in f32.
    LorenzRk4F32,
    /// The same, contracted.
    LorenzRk4F32Contracted,
    /// Lorenz, Fehlberg 7(8) at rtol = atol = 1e-8 to t = 1, f64.
    LorenzRk78F64,
    /// The same in f32 at rtol = atol = 1e-6 (1e-8 is below f32's resolution).
    LorenzRk78F32,
    /// Lorenz, Fehlberg 7(8) at rtol = atol = 1e-12 to t = 1, f64: against Verner 9(8).
    LorenzRk78F64Tight,
    /// Lorenz, Verner 9(8) at rtol = atol = 1e-12 to t = 1, f64: the method for tight
    /// tolerances, fewer steps of more stages than Fehlberg 7(8).
    LorenzVern9F64,
    /// Kepler orbits, e uniform in [0, 0.9] and 1 to 32 whole periods per sample
    /// (log-uniform; both in random order), Fehlberg 7(8) at rtol = atol = 1e-10: lifetimes
    /// differ by up to 80x.
    Kepler,
    /// The driven damped pendulum `theta'' + 0.5 theta' + sin(theta) = A cos(omega t)`, A
    /// in [0.9, 1.5] by omega in [0.5, 1.0] (a grid, A slowest), RK4 at dt = 0.01 to t = 10
    /// (1,000 steps), f64. Its rayon scalar arm calls std's `sin`/`cos`.
    PendulumRk4F64,
    /// The same in f32.
    PendulumRk4F32,
    /// Lorenz-96, 40 sites (one array plane), forcing F in [6, 10], RK4 at dt = 0.01 to
    /// t = 1 (100 steps), f64.
    Lorenz96Rk4,
    /// The same with Tsitouras 5(4) at rtol = atol = 1e-8.
    Lorenz96Tsit5,
    /// Kuramoto, 32 phases, coupling K in [0, 4] per sample, natural frequencies one shared
    /// table in [-1, 1], `sin` of all 32 x 32 differences per evaluation; RK4 at
    /// dt = 0.02 to t = 1 (50 steps), f64.
    KuramotoRk4,
    /// A neural ODE: a 4-32-4 tanh network (292 weights, one shared table), the initial
    /// state swept per sample; RK4 at dt = 0.01 to t = 1 (100 steps), f64.
    NeuralOdeRk4,
    /// Geometric Brownian motion for a European call (S0 = 100, r = 0.05, sigma = 0.2, one
    /// path per sample), Euler-Maruyama at dt = 1/252 to t = 1 (252 steps), f64; one
    /// Philox block and one Box-Muller pair per step.
    GbmEm,
    /// Ornstein-Uhlenbeck, theta in [0.5, 2] per sample, mean 0, sigma 1, from x = 1;
    /// Rößler's SRA1 at dt = 0.01 to t = 5 (500 steps), f64; two Philox blocks per step.
    OuSra1,
    /// Robertson's stiff kinetics, the rates `k1 = 0.04`, `k2 = 3e7`, `k3 = 1e4` each
    /// scaled per sample by a factor from 0.5 to 2 (as `examples/robertson.rs`), Rodas5P
    /// at rtol = atol = 1e-8 to t = 1e5, f64: per step a Jacobian on dual numbers, a 3 x 3
    /// LU and 8 solves.
    RobertsonRodas5p,
    /// HIRES (8 states), the rate of `y1 -> y2` scaled per sample from 0.8 to 1.2,
    /// Rodas5P at rtol = atol = 1e-8 to t = 321.8122, f64: per step an 8 x 8 Jacobian on
    /// dual numbers, its LU and 8 solves.
    HiresRodas5p,
}

impl Workload {
    /// Every workload.
    pub const ALL: [Workload; 21] = [
        Workload::Oscillator,
        Workload::OscillatorContracted,
        Workload::LorenzRk4F64,
        Workload::LorenzRk4F64Contracted,
        Workload::LorenzRk4F32,
        Workload::LorenzRk4F32Contracted,
        Workload::LorenzRk78F64,
        Workload::LorenzRk78F32,
        Workload::LorenzRk78F64Tight,
        Workload::LorenzVern9F64,
        Workload::Kepler,
        Workload::PendulumRk4F64,
        Workload::PendulumRk4F32,
        Workload::Lorenz96Rk4,
        Workload::Lorenz96Tsit5,
        Workload::KuramotoRk4,
        Workload::NeuralOdeRk4,
        Workload::GbmEm,
        Workload::OuSra1,
        Workload::RobertsonRodas5p,
        Workload::HiresRodas5p,
    ];

    /// The workload's name on the card and the command line.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Oscillator => "oscillator",
            Workload::OscillatorContracted => "oscillator-contracted",
            Workload::LorenzRk4F64 => "lorenz-rk4-f64",
            Workload::LorenzRk4F64Contracted => "lorenz-rk4-f64-contracted",
            Workload::LorenzRk4F32 => "lorenz-rk4-f32",
            Workload::LorenzRk4F32Contracted => "lorenz-rk4-f32-contracted",
            Workload::LorenzRk78F64 => "lorenz-rk78-f64",
            Workload::LorenzRk78F32 => "lorenz-rk78-f32",
            Workload::LorenzRk78F64Tight => "lorenz-rk78-f64-1e-12",
            Workload::LorenzVern9F64 => "lorenz-vern9-f64-1e-12",
            Workload::Kepler => "kepler-rk78",
            Workload::PendulumRk4F64 => "pendulum-rk4-f64",
            Workload::PendulumRk4F32 => "pendulum-rk4-f32",
            Workload::Lorenz96Rk4 => "lorenz96-rk4-f64",
            Workload::Lorenz96Tsit5 => "lorenz96-tsit5-f64",
            Workload::KuramotoRk4 => "kuramoto-rk4-f64",
            Workload::NeuralOdeRk4 => "neural-ode-rk4-f64",
            Workload::GbmEm => "gbm-em-f64",
            Workload::OuSra1 => "ou-sra1-f64",
            Workload::RobertsonRodas5p => "robertson-rodas5p-f64",
            Workload::HiresRodas5p => "hires-rodas5p-f64",
        }
    }

    /// The plain workload a contracted one is the contracted form of (the same ensemble,
    /// the kernel without `contract`).
    pub fn plain(self) -> Option<Workload> {
        match self {
            Workload::OscillatorContracted => Some(Workload::Oscillator),
            Workload::LorenzRk4F64Contracted => Some(Workload::LorenzRk4F64),
            Workload::LorenzRk4F32Contracted => Some(Workload::LorenzRk4F32),
            _ => None,
        }
    }

    /// Parses a name from [`Workload::name`].
    pub fn parse(s: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == s)
    }

    /// The card's sample count for this workload.
    pub fn default_n(self) -> usize {
        match self {
            Workload::Oscillator | Workload::OscillatorContracted => 100_000,
            Workload::Kepler | Workload::Lorenz96Rk4 | Workload::Lorenz96Tsit5 => 16_384,
            Workload::LorenzRk78F64Tight | Workload::LorenzVern9F64 => 16_384,
            Workload::KuramotoRk4 => 4_096,
            Workload::HiresRodas5p => 16_384,
            Workload::NeuralOdeRk4 => 16_384,
            Workload::GbmEm => 262_144,
            _ => 65_536,
        }
    }

    /// The plane the `host-reorder` arm sorts by.
    fn reorder_key(self) -> &'static str {
        match self {
            Workload::Oscillator | Workload::OscillatorContracted => "omega",
            Workload::Kepler => "t_end",
            Workload::PendulumRk4F64 | Workload::PendulumRk4F32 => "amp",
            Workload::Lorenz96Rk4 | Workload::Lorenz96Tsit5 => "forcing",
            Workload::KuramotoRk4 => "coupling",
            Workload::NeuralOdeRk4 => "y[0]",
            Workload::GbmEm => "path",
            Workload::OuSra1 => "theta",
            Workload::RobertsonRodas5p => "k1",
            Workload::HiresRodas5p => "p",
            _ => "rho",
        }
    }

    /// A prepared case: this workload on `n` samples, run by `arm` (host arms on a team
    /// set up by `host`); an error when the arm's team is not available.
    pub fn case(self, arm: Arm, n: usize, host: HostConfig) -> Result<Box<dyn Case>, Error> {
        self.case_in_order(arm, n, host, false)
    }

    /// [`Workload::case`], with the samples sorted by lifetime (the baseline's steps,
    /// shortest first) when `by_lifetime`: as a sweep over the parameter that sets the
    /// lifetime would order them, so that long-lived samples sit together (what static
    /// shards across ranks balance worst).
    pub fn case_in_order(
        self,
        arm: Arm,
        n: usize,
        host: HostConfig,
        by_lifetime: bool,
    ) -> Result<Box<dyn Case>, Error> {
        let o = by_lifetime;
        match self {
            Workload::PendulumRk4F64 => {
                let e = pendulum::<PendulumRk4>(n);
                Prepared::boxed(self, arm, e, host, o, |e, m| {
                    e.baseline_with(m, pendulum_std_step::<PendulumRk4>)
                })
            }
            Workload::PendulumRk4F32 => {
                let e = pendulum::<PendulumRk4F32>(n);
                Prepared::boxed(self, arm, e, host, o, |e, m| {
                    e.baseline_with(m, pendulum_std_step::<PendulumRk4F32>)
                })
            }
            _ => self.with_ensemble(
                n,
                Prepare {
                    arm,
                    host,
                    by_lifetime,
                },
            ),
        }
    }
}

/// Something done with a workload's ensemble, whatever its kernel (see
/// [`Workload::with_ensemble`]).
pub trait WithEnsemble {
    /// What it gives back.
    type Out;
    /// Does it with workload `w`'s ensemble `e`.
    fn with<K: Kernel>(self, w: Workload, e: Ensemble<K>) -> Self::Out
    where
        K::Real: HostReal;
}

impl Workload {
    /// Hands the workload's ensemble of `n` samples (the card's planes, before any run) to
    /// `f`, typed by its kernel.
    pub fn with_ensemble<F: WithEnsemble>(self, n: usize, f: F) -> F::Out {
        match self {
            Workload::Oscillator => f.with(self, oscillator::<Oscillator>(n)),
            Workload::OscillatorContracted => f.with(self, oscillator::<OscillatorContracted>(n)),
            Workload::LorenzRk4F64 => f.with(self, lorenz_rk4::<LorenzRk4>(n)),
            Workload::LorenzRk4F64Contracted => f.with(self, lorenz_rk4::<LorenzRk4Contracted>(n)),
            Workload::LorenzRk4F32 => f.with(self, lorenz_rk4::<LorenzRk4F32>(n)),
            Workload::LorenzRk4F32Contracted => {
                f.with(self, lorenz_rk4::<LorenzRk4F32Contracted>(n))
            }
            Workload::LorenzRk78F64 => f.with(self, lorenz_adaptive::<LorenzRk78>(n, 1e-8)),
            Workload::LorenzRk78F32 => f.with(self, lorenz_adaptive::<LorenzRk78F32>(n, 1e-6)),
            Workload::LorenzRk78F64Tight => f.with(self, lorenz_adaptive::<LorenzRk78>(n, 1e-12)),
            Workload::LorenzVern9F64 => f.with(self, lorenz_adaptive::<LorenzVern9>(n, 1e-12)),
            Workload::Kepler => f.with(self, kepler(n)),
            Workload::PendulumRk4F64 => f.with(self, pendulum::<PendulumRk4>(n)),
            Workload::PendulumRk4F32 => f.with(self, pendulum::<PendulumRk4F32>(n)),
            Workload::Lorenz96Rk4 => f.with(self, lorenz96::<Lorenz96Rk4>(n, &[0.01, 1.0], 1)),
            Workload::Lorenz96Tsit5 => {
                f.with(self, lorenz96::<Lorenz96Tsit5>(n, &[1.0, 1e-8, 1e-8], 4))
            }
            Workload::KuramotoRk4 => f.with(self, kuramoto(n)),
            Workload::NeuralOdeRk4 => f.with(self, neural_ode(n)),
            Workload::GbmEm => f.with(self, gbm(n)),
            Workload::OuSra1 => f.with(self, ou(n)),
            Workload::RobertsonRodas5p => f.with(self, robertson(n)),
            Workload::HiresRodas5p => f.with(self, hires(n)),
        }
    }

    /// The workload's ensemble of `n` samples typed by its kernel `K`, or `None` when `K`
    /// is not this workload's kernel. Unlike a [`WithEnsemble`] visitor, which compiles its
    /// work once per workload, the caller's code is compiled for `K` alone: a test that runs
    /// a few workloads builds only their kernels (each kernel on a team is minutes of build).
    pub fn ensemble<K: Kernel>(self, n: usize) -> Option<Ensemble<K>> {
        struct Boxed;
        impl WithEnsemble for Boxed {
            type Out = Box<dyn Any>;
            fn with<K: Kernel>(self, _: Workload, e: Ensemble<K>) -> Box<dyn Any>
            where
                K::Real: HostReal,
            {
                Box::new(e)
            }
        }
        self.with_ensemble(n, Boxed).downcast().ok().map(|e| *e)
    }
}

/// One workload on one arm, ready to be timed.
pub trait Case {
    /// Resets the planes and runs once; returns the run's wall time (reset excluded).
    fn run_once(&mut self) -> Duration;
    /// [`Case::run_once`] across the ranks of an MPI job (collective: every rank calls it;
    /// the root's planes hold the ensemble and get every result back). The time is the
    /// root's, scatter and gather included; on other ranks it is their call's.
    fn run_once_on(&mut self, job: &MpiJob, balance: Balance) -> Result<Duration, MpiError>;
    /// The last [`Case::run_once_on`]'s merged report (parts per rank, imbalance).
    fn merged(&self) -> Option<&Merged>;
    /// Launches of the last run that measured launch shapes (`lanes: auto` still tuning;
    /// [`eagle::RunReport::tuning_launches`]); 0 without a run.
    fn tuning_launches(&self) -> u64;
    /// The card row for a measured median run time (after at least one `run_once`). A host
    /// team row also measures its in-cache ceiling ([`Row::ceiling_pct_of_peak`]).
    fn row(&self, median_s: f64) -> Row;
}

/// [`Workload::case_in_order`] for the workloads whose rayon scalar arm is the kernel's own
/// scalar step ([`Ensemble::baseline`]).
struct Prepare {
    arm: Arm,
    host: HostConfig,
    by_lifetime: bool,
}

impl WithEnsemble for Prepare {
    type Out = Result<Box<dyn Case>, Error>;
    fn with<K: Kernel>(self, w: Workload, e: Ensemble<K>) -> Self::Out
    where
        K::Real: HostReal,
    {
        Prepared::boxed(w, self.arm, e, self.host, self.by_lifetime, |e, m| {
            e.baseline(m)
        })
    }
}

/// The loop the rayon scalar arm times: one sample at a time to completion, returning the
/// steps each took.
type ScalarLoop<K> = fn(&mut Ensemble<K>, u64) -> Vec<u64>;

/// What the card deploys for kernel `K`: `K` itself, or with feature `portable-loops` (the
/// test command's build) `K`'s portable host loops alone ([`hawk::PortableLoops`]: the
/// same planes, entry and bits, a third of the card's build; not what `cargo bench`
/// measures). Tests of card workloads deploy it too, so that they share the card's
/// instances of the kernel's loops instead of compiling their own.
#[cfg(not(feature = "portable-loops"))]
pub type Deploy<K> = K;
/// What the card deploys for kernel `K` (see the other build's comment).
#[cfg(feature = "portable-loops")]
pub type Deploy<K> = hawk::PortableLoops<K>;

struct Prepared<K: Kernel> {
    workload: Workload,
    /// The rayon scalar arm's loop (the kernel's scalar step, or std's math for the
    /// pendulum).
    scalar: ScalarLoop<K>,
    arm: Arm,
    e: Ensemble<K>,
    deployed: eagle::Deployed<Deploy<K>>,
    flops_per_step: u64,
    /// Steps each sample took in the baseline (the useful work).
    steps: Vec<u64>,
    reference: Vec<Vec<K::Real>>,
    /// A contracted workload's results against its plain workload's (the baselines' largest
    /// relative difference).
    vs_plain: Option<f64>,
    report: Option<RunReport>,
    merged: Option<Merged>,
}

impl<K: Kernel> Prepared<K>
where
    K::Real: HostReal,
{
    /// The case ready to run: the baseline run once (the reference and the useful work),
    /// the team deployed.
    fn boxed(
        workload: Workload,
        arm: Arm,
        mut e: Ensemble<K>,
        host: HostConfig,
        by_lifetime: bool,
        scalar: ScalarLoop<K>,
    ) -> Result<Box<dyn Case>, Error> {
        let mid = e.len() / 2;
        let muts: Vec<K::Real> = e.muts.iter().map(|m| m[mid]).collect();
        let ins: Vec<K::Real> = e.ins.iter().map(|m| m[mid]).collect();
        let flops_per_step = flops_per_step::<K>(&ins, &e.params, &muts);
        // The baseline's result is the reference every arm is checked against, and the steps it
        // takes per sample are the ensemble's useful work.
        let mut steps = e.baseline(MAX_STEPS);
        let vs_plain = workload.plain().map(|p| {
            let ours = e.muts.iter().flatten().map(|v| v.to_f64());
            max_rel_diff(ours, p.with_ensemble(e.len(), BaselineResult))
        });
        if by_lifetime {
            let mut order: Vec<usize> = (0..steps.len()).collect();
            order.sort_by_key(|&i| steps[i]);
            // The baseline's results and lifetimes move with their samples.
            e.permute(&order);
            steps = order.iter().map(|&i| steps[i]).collect();
        }
        let reference = e.muts.clone();
        let choice = if arm.team() == "device" {
            Target::Device(0)
        } else {
            Target::Host(host)
        };
        let deployed = eagle::deploy(Deploy::<K>::default(), choice)?;
        Ok(Box::new(Prepared {
            workload,
            scalar,
            arm,
            e,
            deployed,
            flops_per_step,
            steps,
            reference,
            vs_plain,
            report: None,
            merged: None,
        }))
    }
}

impl<K: Kernel> Case for Prepared<K>
where
    K::Real: HostReal,
{
    fn run_once(&mut self) -> Duration {
        self.e.reset();
        let t0 = Instant::now();
        if self.arm == Arm::RayonScalar {
            (self.scalar)(&mut self.e, MAX_STEPS);
        } else {
            let options = options(self.workload, self.arm);
            self.report = Some(self.e.run(&self.deployed, options).expect("card run"));
        }
        t0.elapsed()
    }

    fn run_once_on(&mut self, job: &MpiJob, balance: Balance) -> Result<Duration, MpiError> {
        let fleet = Fleet::from_deployed(vec![self.deployed.clone()]);
        let options = options(self.workload, self.arm);
        let verdict = match self.arm {
            Arm::RayonScalar => Err(format!(
                "arm `{}` does not run across ranks (it has no runner)",
                self.arm.name()
            )),
            _ => Ok(()),
        };
        job.agree(verdict)?;
        self.e.reset();
        let t0 = Instant::now();
        let run = if job.is_root() {
            job.run_root(&fleet, &options, balance, self.e.planes())?
        } else {
            job.run_other(&fleet, &options, balance)?
        };
        let t = t0.elapsed();
        self.report = Some(run.merged.report.clone());
        self.merged = Some(run.merged);
        Ok(t)
    }

    fn merged(&self) -> Option<&Merged> {
        self.merged.as_ref()
    }

    fn tuning_launches(&self) -> u64 {
        self.report.as_ref().map_or(0, |r| r.tuning_launches)
    }

    fn row(&self, median_s: f64) -> Row {
        let max_rel_diff = max_rel_diff(
            self.e.muts.iter().flatten().map(|v| v.to_f64()),
            self.reference.iter().flatten().map(|v| v.to_f64()),
        );
        // Lane groups as the arm ran them: the host team's measured (or forced) width.
        let lanes = match self.deployed.team() {
            eagle::Team::Host(h) => self
                .report
                .as_ref()
                .and_then(|r| r.lanes)
                .map_or_else(|| h.lanes::<K::Real>(), |c| c.shape.lanes),
            eagle::Team::Device(_) => WARP,
        };
        let threads = match self.deployed.team() {
            eagle::Team::Host(h) => Some(h.threads()),
            eagle::Team::Device(_) => None,
        };
        let ceiling = self.ceiling();
        let mut row = Row::new(
            self.workload,
            self.arm,
            self.e.len(),
            K::Real::NAME,
            median_s,
            self.flops_per_step,
            Lifetimes::new(&self.steps, lanes),
            self.report.as_ref(),
            max_rel_diff,
            threads,
            ceiling,
        );
        row.vs_plain_max_rel_diff = self.vs_plain;
        row
    }
}

/// The largest relative difference of `a` from `b`, value by value (0 where equal).
fn max_rel_diff(a: impl Iterator<Item = f64>, b: impl IntoIterator<Item = f64>) -> f64 {
    a.zip(b)
        .map(|(a, b)| {
            if a == b {
                0.0
            } else {
                (a - b).abs() / b.abs().max(1e-300)
            }
        })
        .fold(0.0, f64::max)
}

/// A workload's final states after its baseline run, as `f64`, plane after plane.
struct BaselineResult;

impl WithEnsemble for BaselineResult {
    type Out = Vec<f64>;
    fn with<K: Kernel>(self, _: Workload, mut e: Ensemble<K>) -> Vec<f64>
    where
        K::Real: HostReal,
    {
        e.baseline(MAX_STEPS);
        e.muts.iter().flatten().map(|v| v.to_f64()).collect()
    }
}

/// Working set of the in-cache ceiling run, per thread (bytes of planes): within a core's
/// L2, and large enough that one launch's work dwarfs the launch's own cost.
const CEILING_BYTES_PER_THREAD: usize = 256 << 10;

impl<K: Kernel> Prepared<K>
where
    K::Real: HostReal,
{
    /// The row's ceiling: issued FLOP/s of the same kernel on the same host team, at the
    /// shape its runs took (ISA, lanes, threads), over the ensemble's first samples, few
    /// enough to stay in cache, in one launch each with compaction off, best of 5. It is
    /// what this kernel's instruction stream gets from the FP pipes here (its mix of FMAs,
    /// adds, compares and selects, and its dependency chains), with memory out of the way.
    /// `None` off the host team, before the team has chosen its shape, or if it could not
    /// run. (The same team, not a new one: a second thread pool would compete with the
    /// row's, whose workers spin for a while after a run.)
    fn ceiling(&self) -> Option<f64> {
        let eagle::Team::Host(h) = self.deployed.team() else {
            return None;
        };
        let ran = self.report.as_ref()?.lanes?;
        if ran.source == hawk_host::tune::ShapeSource::Probing {
            return None;
        }
        let bytes = (self.e.ins.len() + self.e.muts.len()) * size_of::<K::Real>();
        let per_thread =
            (CEILING_BYTES_PER_THREAD / bytes.max(1)).next_multiple_of(ran.shape.lanes);
        let mut small = self.e.head(per_thread * h.threads());
        let longest = self.steps[..small.len()].iter().copied().max()?.max(1);
        let options = Options::new(MAX_STEPS)
            .compaction(Compaction::Off)
            .steps(Steps::Fixed(u32::try_from(longest).ok()?));
        (0..5)
            .map(|_| {
                small.reset();
                let t0 = Instant::now();
                let r = small.run(&self.deployed, options.clone()).ok()?;
                if r.lanes.map(|c| c.shape) != Some(ran.shape) {
                    return None;
                }
                let issued = r.issued_sample_steps? * self.flops_per_step;
                Some(issued as f64 / t0.elapsed().as_secs_f64())
            })
            .try_fold(0.0, |best: f64, r| r.map(|r| best.max(r)))
    }
}

/// Threads per warp: the lane group of a device team.
const WARP: usize = 32;

/// Step cap of every card run (no workload comes near it).
pub const MAX_STEPS: u64 = 1_000_000;

fn r<R: Real>(v: f64) -> R {
    R::from_f64(v)
}

fn linspace<R: Real>(lo: f64, hi: f64, n: usize) -> Vec<R> {
    (0..n)
        .map(|i| r(lo + (hi - lo) * i as f64 / (n.max(2) - 1) as f64))
        .collect()
}

fn oscillator<K: Kernel<Real = f64>>(n: usize) -> Ensemble<K> {
    Ensemble::new(
        vec![linspace(1.0, 3.0, n)],
        vec![1.0, 1e-3],
        vec![vec![1.0; n], vec![0.0; n], vec![0.0; n]],
    )
}

fn lorenz_rk4<K: Kernel>(n: usize) -> Ensemble<K>
where
    K::Real: HostReal,
{
    let z = vec![r(0.0); n];
    Ensemble::new(
        vec![linspace(0.0, 21.0, n)],
        vec![r(10.0), r(8.0 / 3.0), r(1e-3), r(1.0)],
        vec![vec![r(1.0); n], z.clone(), z.clone(), z],
    )
}

/// Lorenz with an adaptive method at `rtol = atol = tol` (params sigma, beta, t_end, rtol,
/// atol; planes x, y, z, t, h, accepted, rejected).
fn lorenz_adaptive<K: Kernel>(n: usize, tol: f64) -> Ensemble<K>
where
    K::Real: HostReal,
{
    let z = vec![r(0.0); n];
    Ensemble::new(
        vec![linspace(0.0, 21.0, n)],
        vec![r(10.0), r(8.0 / 3.0), r(1.0), r(tol), r(tol)],
        vec![
            vec![r(1.0); n],
            z.clone(),
            z.clone(),
            z.clone(),
            vec![r(1e-2); n],
            z.clone(),
            z,
        ],
    )
}

/// Path numbers `0..n` (the noise's key).
fn paths(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64).collect()
}

fn gbm(n: usize) -> Ensemble<GbmEm> {
    // Params: mu (the rate), sigma, dt, t_end, seed; planes: s, t, step.
    Ensemble::new(
        vec![paths(n)],
        vec![0.05, 0.2, 1.0 / 252.0, 1.0, 2024.0],
        vec![vec![100.0; n], vec![0.0; n], vec![0.0; n]],
    )
}

fn ou(n: usize) -> Ensemble<OuSra1> {
    // Inputs: theta, path; params: mean, sigma, dt, t_end, seed; planes: x, t, step.
    Ensemble::new(
        vec![linspace(0.5, 2.0, n), paths(n)],
        vec![0.0, 1.0, 0.01, 5.0, 2024.0],
        vec![vec![1.0; n], vec![0.0; n], vec![0.0; n]],
    )
}

fn robertson(n: usize) -> Ensemble<RobertsonRodas5p> {
    // The factor 2^((j - 7.5) / 7.5), 0.5 to 2, of sample i's rates: j = i, 5i, 11i mod 16.
    let factor = |j: usize| 2f64.powf((j as f64 - 7.5) / 7.5);
    let rates = |base: f64, m: usize| (0..n).map(|i| base * factor((m * i) % 16)).collect();
    // Inputs: k1, k2, k3; params: t_end, rtol, atol; planes: y (3), t, h, accepted,
    // rejected.
    let z = vec![0.0; n];
    Ensemble::new(
        vec![rates(0.04, 1), rates(3e7, 5), rates(1e4, 11)],
        vec![1e5, 1e-8, 1e-8],
        vec![
            vec![1.0; n],
            z.clone(),
            z.clone(),
            z.clone(),
            vec![1e-6; n],
            z.clone(),
            z,
        ],
    )
}

fn hires(n: usize) -> Ensemble<HiresRodas5p> {
    // Inputs: p; params: t_end, rtol, atol; planes: y (8), t, h, accepted, rejected.
    let z = vec![0.0; n];
    let mut muts = vec![vec![1.0; n]];
    muts.extend(std::iter::repeat_n(z.clone(), 6));
    muts.extend([vec![0.0057; n], z.clone(), vec![1e-6; n], z.clone(), z]);
    Ensemble::new(
        vec![linspace(0.8, 1.2, n)],
        vec![321.8122, 1e-8, 1e-8],
        muts,
    )
}

fn kepler(n: usize) -> Ensemble<KeplerRk78> {
    // A fixed shuffle (SplitMix64) so long and short orbits are mixed in every lane group.
    let mut state = 0x5EED_u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let e: Vec<f64> = (0..n).map(|_| 0.9 * next()).collect();
    // Whole periods, log-uniform in 1..=32: as many samples run 1 to 2 periods as 16 to 32.
    let periods: Vec<f64> = (0..n)
        .map(|_| 32f64.powf(next()).floor().clamp(1.0, 32.0))
        .collect();
    let z = vec![0.0; n];
    Ensemble::new(
        vec![
            periods
                .iter()
                .map(|p| 2.0 * std::f64::consts::PI * p)
                .collect(),
        ],
        vec![1e-10, 1e-10],
        vec![
            e.iter().map(|e| 1.0 - e).collect(),
            z.clone(),
            z.clone(),
            e.iter().map(|e| ((1.0 + e) / (1.0 - e)).sqrt()).collect(),
            z.clone(),
            vec![1e-3; n],
            z.clone(),
            z,
        ],
    )
}

fn pendulum<K: Kernel>(n: usize) -> Ensemble<K>
where
    K::Real: HostReal,
{
    // A grid: `side` amplitudes by as many frequencies (the last row may be cut short).
    let side = (n as f64).sqrt().ceil().max(1.0) as usize;
    let amps = linspace::<f64>(0.9, 1.5, side);
    let omegas = linspace::<f64>(0.5, 1.0, side);
    let z = vec![r(0.0); n];
    Ensemble::new(
        vec![
            (0..n).map(|i| r(amps[i / side])).collect(),
            (0..n).map(|i| r(omegas[i % side])).collect(),
        ],
        vec![r(0.5), r(1e-2), r(10.0)],
        vec![vec![r(0.2); n], z.clone(), z],
    )
}

/// Lorenz-96 (kernel `K`: forcing, then `params`; the 40 sites, the time, then `extra`
/// planes: the adaptive method's `h` = 0.01 and two zero counters): F in [6, 10], site `j`
/// of sample `i` at `F + ((7 j + 3 i) mod 11) / 100` (tests/it/lorenz96.rs's ensemble).
fn lorenz96<K: Kernel<Real = f64>>(n: usize, params: &[f64], extra: usize) -> Ensemble<K> {
    let forcing: Vec<f64> = linspace(6.0, 10.0, n);
    let mut muts: Vec<Vec<f64>> = (0..LORENZ96_N)
        .map(|j| {
            (0..n)
                .map(|i| forcing[i] + ((7 * j + 3 * i) % 11) as f64 / 100.0)
                .collect()
        })
        .collect();
    muts.push(vec![0.0; n]);
    if extra > 1 {
        muts.push(vec![1e-2; n]);
        muts.extend((2..extra).map(|_| vec![0.0; n]));
    }
    Ensemble::new(vec![forcing], params.to_vec(), muts)
}

fn kuramoto(n: usize) -> Ensemble<KuramotoRk4> {
    let omega: Vec<f64> = linspace(-1.0, 1.0, KURAMOTO_N);
    let mut muts: Vec<Vec<f64>> = (0..KURAMOTO_N)
        .map(|j| {
            (0..n)
                .map(|i| {
                    2.0 * std::f64::consts::PI * j as f64 / KURAMOTO_N as f64 + 0.1 * (i % 5) as f64
                })
                .collect()
        })
        .collect();
    muts.push(vec![0.0; n]);
    let params = omega.into_iter().chain([0.02, 1.0]).collect();
    Ensemble::new(vec![linspace(0.0, 4.0, n)], params, muts)
}

fn neural_ode(n: usize) -> Ensemble<NeuralOdeRk4> {
    // Fixed weights in [-0.5, 0.5]: a pattern, not a trained network.
    let w = (0..NEURAL_ODE_WEIGHTS).map(|k| ((k * 37 % 17) as f64 - 8.0) / 16.0);
    let mut muts: Vec<Vec<f64>> = (0..NEURAL_ODE_N)
        .map(|j| linspace(-1.0 + 0.25 * j as f64, 1.0 - 0.25 * j as f64, n))
        .collect();
    muts.push(vec![0.0; n]);
    let params = w.chain([0.01, 1.0]).collect();
    Ensemble::new(Vec::new(), params, muts)
}

/// std's `sin` and `cos` for the element types (the rayon scalar arm of the pendulum).
trait StdTrig: Copy {
    fn std_sin(self) -> Self;
    fn std_cos(self) -> Self;
}

impl StdTrig for f64 {
    fn std_sin(self) -> f64 {
        self.sin()
    }
    fn std_cos(self) -> f64 {
        self.cos()
    }
}

impl StdTrig for f32 {
    fn std_sin(self) -> f32 {
        self.sin()
    }
    fn std_cos(self) -> f32 {
        self.cos()
    }
}

/// One pendulum step as the kernel takes it (`hawk::builtin::pendulum`: RK4 with the same
/// operations in the same order), with std's `sin`/`cos` (libm's algorithms) in place of
/// `hawk::math`'s: what a hand-written scalar loop computes. Planes: ins `(amp, omega)`,
/// params `(gamma, dt, t_end)`, muts `(theta, v, t)`.
fn pendulum_std_step<K: Kernel>(
    ins: &K::Ins<K::Real>,
    params: &K::Params<K::Real>,
    muts: &mut K::Muts<K::Real>,
    done: &mut bool,
) where
    K::Real: HostReal + StdTrig,
{
    let (ins, p, m) = (ins.as_slice(), params.as_slice(), muts.as_mut_slice());
    let (amp, omega) = (ins[0], ins[1]);
    let (gamma, dt, t_end) = (p[0], p[1], p[2]);
    let f = |t: K::Real, u: &[K::Real; 2]| {
        [
            u[1],
            amp * (omega * t).std_cos() - gamma * u[1] - u[0].std_sin(),
        ]
    };
    let u = hawk::methods::rk4_step_fma(&f, m[2], &[m[0], m[1]], dt);
    m[0] = u[0];
    m[1] = u[1];
    m[2] += dt;
    *done = m[2] >= t_end - dt * r::<K::Real>(0.5);
}

fn options(w: Workload, arm: Arm) -> Options {
    let o = Options::new(MAX_STEPS);
    match arm {
        Arm::HostNoCompaction => o.compaction(Compaction::Off),
        Arm::HostCompactAlways => o.compaction(Compaction::Always),
        Arm::HostReorder => o.reorder(Reorder::ByPlane(w.reorder_key().into())),
        Arm::DeviceSimulate => o.arm(RunArm::Simulate),
        Arm::DeviceGraph => o.arm(RunArm::Graph),
        Arm::DeviceGraphWhile => o.arm(RunArm::GraphWhile),
        Arm::DeviceGraphGather => o
            .arm(RunArm::Graph)
            .device_compaction(DeviceCompaction::Gather),
        Arm::Host | Arm::RayonScalar => o,
    }
}
