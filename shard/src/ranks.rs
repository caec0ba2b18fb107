//! MPI ranks as every build sees them: [`MpiJob`] (the job this process belongs to, when
//! `mpirun` started it), [`Balance`], [`MpiRun`], [`MpiError`]. With the `mpi` feature
//! they run on `eagle_shard::mpi`; without it [`MpiJob::from_env`] finds no job (and says how
//! to rebuild when `mpirun` started the process), and nothing of MPI is built. Programs
//! call this API with no `cfg` of their own: `eagle-cli`'s main job and card do.

use crate::fleet::{Devices, Fleet};
use crate::report::Merged;
use crate::split::ranges;
use eagle_runtime::{Options, Status};
use hawk::{Kernel, PlaneSource};
use hawk_host::HostReal;
use std::ops::Range;

/// How the ranks share the ensemble.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Balance {
    /// One contiguous shard per rank, sized by the ranks' weights (default): the least
    /// communication; best when samples live about as long as each other.
    #[default]
    Static,
    /// Ranks take contiguous chunks from the root until none are left (the root computes
    /// chunks too): ranks that drew short-lived samples take more. `chunk` samples each,
    /// or with `chunk: 0` guided sizes: half an even share of what is left, shrinking to
    /// `n / (64 x ranks)` at the end. Best when lifetimes differ a lot and cluster (long
    /// ones together, as in a sweep over the parameter that sets them).
    Dynamic {
        /// Samples per chunk (0: automatic).
        chunk: usize,
    },
}

/// A run refused or failed on some rank: every rank returns the same value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MpiError {
    /// The lowest rank that failed.
    pub rank: usize,
    /// What it said (an [`eagle_runtime::Error`]'s message, word for word, when the
    /// runtime refused or failed).
    pub message: String,
}

impl std::fmt::Display for MpiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rank {}: {}", self.rank, self.message)
    }
}

impl std::error::Error for MpiError {}

/// What a run across ranks gives back on each rank.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiRun {
    /// The same on every rank: the ranks' reports merged, one [`crate::Part`] per rank.
    pub merged: Merged,
    /// Per-sample status in the caller's order: the whole ensemble's on the root
    /// (gathered), this rank's shard's with distributed planes, empty on other ranks.
    pub status: Vec<Status>,
}

impl std::fmt::Display for MpiRun {
    /// [`Merged`]'s lines: the seed's two, then `ranks: 2, imbalance: 1.03`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.merged.fmt(f)
    }
}

/// `true` when this process was started by a launcher (`mpirun`/`mpiexec` of Open MPI or
/// MPICH, `srun` with PMI/PMIx): programs that also run alone initialize MPI only then.
pub fn under_mpirun() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// The equal contiguous share of rank `rank` of `size` in an `n`-sample ensemble: build a
/// rank's planes for [`MpiJob::run_distributed`] from it.
pub fn share(n: usize, rank: usize, size: usize) -> Range<usize> {
    ranges(n, &vec![1.0; size.max(1)])[rank.min(size.max(1) - 1)].clone()
}

/// The MPI job this process belongs to: rank, size, and collective runs over
/// `eagle_shard::mpi::Ranks` on `MPI_COMM_WORLD` (feature `mpi`). Dropping it finalizes
/// MPI.
pub struct MpiJob {
    #[cfg(feature = "mpi")]
    universe: ::mpi::environment::Universe,
    #[cfg(feature = "mpi")]
    world: ::mpi::topology::SimpleCommunicator,
    #[cfg(not(feature = "mpi"))]
    never: std::convert::Infallible,
}

impl std::fmt::Debug for MpiJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiJob")
            .field("rank", &self.rank())
            .field("size", &self.size())
            .finish()
    }
}

#[cfg(feature = "mpi")]
impl MpiJob {
    /// The job, when `mpirun` (or another launcher: see [`under_mpirun`]) started this
    /// process: MPI is initialized (`MPI_THREAD_FUNNELED`: only the calling thread makes
    /// MPI calls). `None` when the process runs alone (MPI is then not touched).
    pub fn from_env() -> Result<Option<MpiJob>, MpiError> {
        if !under_mpirun() {
            return Ok(None);
        }
        let (universe, _) = ::mpi::initialize_with_threading(::mpi::Threading::Funneled)
            .ok_or_else(|| MpiError {
                rank: 0,
                message: "MPI was already initialized in this process".into(),
            })?;
        let world = universe.world();
        Ok(Some(MpiJob { universe, world }))
    }

    fn ranks(
        &self,
        balance: Balance,
    ) -> crate::mpi::Ranks<'_, ::mpi::topology::SimpleCommunicator> {
        let _ = &self.universe;
        crate::mpi::Ranks::new(&self.world).balance(balance)
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.ranks(Balance::Static).rank()
    }

    /// Ranks in the job.
    pub fn size(&self) -> usize {
        self.ranks(Balance::Static).size()
    }

    /// This process's devices on a node shared with other ranks
    /// ([`crate::mpi::Ranks::local_devices`]); collective.
    pub fn local_devices(&self) -> Devices {
        self.ranks(Balance::Static).local_devices()
    }

    /// [`crate::mpi::Ranks::agree`] on `MPI_COMM_WORLD`: the same error on every rank when
    /// any rank's verdict is one.
    pub fn agree<T>(&self, verdict: Result<T, String>) -> Result<T, MpiError> {
        self.ranks(Balance::Static).agree(verdict)
    }

    /// [`crate::mpi::Ranks::run_root`] on `MPI_COMM_WORLD`.
    pub fn run_root<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        balance: Balance,
        planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        self.ranks(balance).run_root(fleet, options, planes)
    }

    /// [`crate::mpi::Ranks::run_other`] on `MPI_COMM_WORLD`.
    pub fn run_other<K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        balance: Balance,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        self.ranks(balance).run_other(fleet, options)
    }

    /// [`crate::mpi::Ranks::run_distributed`] on `MPI_COMM_WORLD`.
    pub fn run_distributed<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        self.ranks(Balance::Static)
            .run_distributed(fleet, options, planes)
    }
}

#[cfg(not(feature = "mpi"))]
impl MpiJob {
    /// No job: this build has no MPI (`None` when the process runs alone; an error saying
    /// how to rebuild when `mpirun` started it, so that N copies do not each run the
    /// whole ensemble).
    pub fn from_env() -> Result<Option<MpiJob>, MpiError> {
        if under_mpirun() {
            return Err(MpiError {
                rank: 0,
                message: "started by mpirun, but built without MPI: rebuild with \
                          `--features mpi` (eagle-cli) or eagle's `mpi` feature"
                    .into(),
            });
        }
        Ok(None)
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        match self.never {}
    }

    /// Ranks in the job.
    pub fn size(&self) -> usize {
        match self.never {}
    }

    /// This process's devices on a node shared with other ranks.
    pub fn local_devices(&self) -> Devices {
        match self.never {}
    }

    /// The agreement step.
    pub fn agree<T>(&self, _verdict: Result<T, String>) -> Result<T, MpiError> {
        match self.never {}
    }

    /// A gathered run's root side.
    pub fn run_root<'a, K: Kernel>(
        &self,
        _fleet: &Fleet<K>,
        _options: &Options,
        _balance: Balance,
        _planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        match self.never {}
    }

    /// A gathered run's other ranks' side.
    pub fn run_other<K: Kernel>(
        &self,
        _fleet: &Fleet<K>,
        _options: &Options,
        _balance: Balance,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        match self.never {}
    }

    /// A run over planes each rank holds.
    pub fn run_distributed<'a, K: Kernel>(
        &self,
        _fleet: &Fleet<K>,
        _options: &Options,
        _planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        match self.never {}
    }
}

impl MpiJob {
    /// `true` on rank 0, the root.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }
}
