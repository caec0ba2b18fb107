//! The device team's backends: one trait, two implementations.
//!
//! - [`cuda`]: a real CUDA GPU through cudarc (driver API, loaded at run time).
//! - [`emulated`]: the same launches run on the CPU with the real launch geometry, calling
//!   the same `hawk::device` bodies the GPU entries call; for tests without a GPU.
//!
//! All orchestration (upload, the launch loop, compaction, graphs, `to_host`) is written
//! once against [`Backend`] in `device_run.rs`.

pub(crate) mod cache;
pub(crate) mod cuda;
pub(crate) mod emulated;
mod props;
pub(crate) mod startup;

pub use cache::BuildCache;
pub use emulated::{EmulatedTeam, FaultPlan};
pub use props::{DeviceProps, device_props};
pub use startup::{Module, ModuleSource, Startup};

use crate::device_run::{DeviceSession, Session};
use crate::error::Error;
use crate::planes::Bound;
use hawk::Kernel;
use hawk::device::{EntryArgs, EntryDesc, HELPERS};
use hawk_host::HostReal;
use std::fmt;
use std::sync::Arc;

/// A device address (a `CUdeviceptr` on CUDA, a host address on the emulated device).
pub(crate) type DevPtr = u64;

/// Threads per block of every launch.
pub(crate) const BLOCK: u32 = 256;

pub(crate) use hawk::device::address as dptr;

/// Every entry a device team may launch for `K`: its two step entries and the helper
/// kernels (compaction, gather/scatter, the WHILE condition).
pub(crate) fn entries<K: Kernel>() -> impl Iterator<Item = EntryDesc> {
    [
        <K::Step as EntryArgs>::DESC,
        <K::StepIndexed as EntryArgs>::DESC,
    ]
    .into_iter()
    .chain(HELPERS)
}

/// Refuses a module that lacks an entry the device team would launch for `K` (its step
/// entries, the compaction and gather/scatter helpers, the WHILE condition), or declares
/// one with other parameters than this runtime passes (a module built by another version),
/// so a kernel missing from the module fails at deploy, the same way on every device
/// team, instead of at its first launch on a GPU. Also refuses a module whose kernel of
/// `K`'s name has another identity (`hawk::Kernel::IDENTITY`): another kernel of the same
/// name (a user's kernel named like a built-in, deployed with eagle's module), whose entry
/// a GPU would run in place of `K`'s body.
pub(crate) fn check_entries<K: Kernel>(module: &Module<'_>) -> Result<(), Error> {
    let have: std::collections::HashSet<&str> = module.entries().collect();
    let missing: Vec<String> = entries::<K>()
        .filter(|e| !have.contains(e.symbol))
        .map(|e| e.symbol.to_owned())
        .collect();
    if !missing.is_empty() {
        return Err(Error::MissingEntries {
            kernel: K::NAME,
            module: module.name.to_owned(),
            missing,
        });
    }
    // Another kernel of this name first: its entries' parameters may differ too, and the
    // clash, not the module's version, is what to fix.
    let identity = module.kernel_identity(K::NAME);
    let other = |found| Error::OtherKernel {
        kernel: K::NAME,
        module: module.name.to_owned(),
        found,
    };
    if identity.is_some_and(|id| id != K::IDENTITY) {
        return Err(other(identity));
    }
    for e in entries::<K>() {
        let expected: Vec<u16> = e.params.iter().map(|p| p.1).collect();
        let found = module.entry_params(e.symbol).unwrap_or_default();
        if found != expected {
            return Err(Error::EntryParams {
                module: module.name.to_owned(),
                entry: e.symbol,
                expected,
                found,
            });
        }
    }
    if identity.is_none() {
        return Err(other(None));
    }
    Ok(())
}

/// A captured graph, by index into the backend's list.
pub(crate) type GraphId = usize;

/// What the device orchestration needs from a device: memory, launches and graphs.
///
/// Launches, zeroing and replays are queued in order (a stream); `download` waits for
/// everything queued before it. Between `begin_capture` and `end_capture` launches and
/// zeroing are recorded into a graph instead of run.
///
/// Device memory is untyped addresses ([`DevPtr`]; host addresses on the emulated device,
/// where a wrong one is a wild host pointer), so every method that takes one is `unsafe`:
/// its caller guarantees that the addresses lie in live allocations of this backend (made
/// by [`Backend::alloc`], freed only when the backend drops) with room for what is read
/// or written there.
pub(crate) trait Backend: Sized {
    /// Looks up these entries of the team's module now, before any capture (a first
    /// lookup inside a capture is refused by drivers before CUDA 12.3).
    fn load_entries(&mut self, symbols: &[&'static str]) -> Result<(), Error>;
    /// Allocates `bytes` of device memory, freed when the backend drops, and queues its
    /// zeroing on this backend's stream (so it lands before anything queued next).
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Error>;
    /// Copies host bytes to the device (complete when it returns).
    ///
    /// # Safety
    /// `dst` must lie in an allocation of this backend with at least `src.len()` bytes from
    /// `dst` on.
    unsafe fn upload(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), Error>;
    /// Waits for queued work, then copies device bytes to the host.
    ///
    /// # Safety
    /// `src` must lie in an allocation of this backend with at least `dst.len()` bytes from
    /// `src` on.
    unsafe fn download(&mut self, src: DevPtr, dst: &mut [u8]) -> Result<(), Error>;
    /// Queues zeroing `bytes` at `dst` (capturable).
    ///
    /// # Safety
    /// `dst` must lie in an allocation of this backend with at least `bytes` bytes from
    /// `dst` on.
    unsafe fn zero(&mut self, dst: DevPtr, bytes: usize) -> Result<(), Error>;
    /// Queues a launch of `threads` threads (blocks of [`BLOCK`]) of the entry `A`
    /// describes, with these arguments (capturable).
    ///
    /// # Safety
    /// `args` must meet its entry's contract ([`EntryArgs::thread`]) for every thread of
    /// the grid (`threads` rounded up to whole blocks; the bodies check their bounds), with
    /// every address in an allocation of this backend, when the launch runs: at once, or,
    /// recorded into a graph, at every replay.
    unsafe fn launch<A: EntryArgs + 'static>(&mut self, args: A, threads: u32)
    -> Result<(), Error>;
    /// Starts recording queued work into a graph.
    fn begin_capture(&mut self) -> Result<(), Error>;
    /// Stops recording; the graph is instantiated and ready to replay.
    fn end_capture(&mut self) -> Result<GraphId, Error>;
    /// A graph whose body (recorded by `body`) repeats while the `u32` at `cond` is non-zero
    /// after an iteration (the body runs at least once). `Ok(Err(reason))` when this device
    /// cannot build conditional WHILE nodes.
    ///
    /// # Safety
    /// `cond` must be a 4-byte allocation of this backend (the body's work meets its own
    /// methods' contracts at every iteration of every replay).
    unsafe fn while_graph(
        &mut self,
        cond: DevPtr,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<Result<GraphId, String>, Error>;
    /// Queues a replay of a graph.
    ///
    /// # Safety
    /// The work the graph recorded must meet, now, the contracts it was recorded under:
    /// what its launches read (index lists, counts) holds what their entries need.
    unsafe fn replay(&mut self, graph: GraphId) -> Result<(), Error>;
    /// Free device memory in bytes, where the driver says (`None`: unknown).
    fn mem_free(&mut self) -> Option<usize> {
        None
    }
}

/// The device a kernel was deployed on.
#[derive(Clone)]
pub enum DeviceTeam {
    /// A CUDA GPU.
    Cuda(Arc<cuda::CudaTeam>),
    /// The emulated device (CPU, real launch geometry) injecting the faults planned; for
    /// tests.
    Emulated(EmulatedTeam),
}

impl DeviceTeam {
    /// Opens a runner's session on this device (allocates the buffers, uploads the
    /// read-only planes). The one place that maps a device team to its backend.
    pub(crate) fn open<K: Kernel>(
        &self,
        planes: &Bound<'_, K::Real>,
    ) -> Result<Box<dyn DeviceSession<K>>, Error>
    where
        K::Real: HostReal,
    {
        // Every entry the session may launch is looked up now: a first lookup inside a
        // graph capture is refused by drivers before CUDA 12.3.
        let symbols: Vec<&'static str> = entries::<K>().map(|e| e.symbol).collect();
        fn ready<B: Backend>(mut be: B, symbols: &[&'static str]) -> Result<B, Error> {
            be.load_entries(symbols)?;
            Ok(be)
        }
        Ok(match self {
            DeviceTeam::Cuda(t) => {
                let be = ready(cuda::CudaBackend::new(t.clone())?, &symbols)?;
                Box::new(Session::new(be, planes)?)
            }
            DeviceTeam::Emulated(t) => {
                let be = ready(emulated::EmulatedBackend::new(t)?, &symbols)?;
                Box::new(Session::new(be, planes)?)
            }
        })
    }
    /// `"cuda"` or `"emulated"`.
    pub fn kind(&self) -> &'static str {
        match self {
            DeviceTeam::Cuda(_) => "cuda",
            DeviceTeam::Emulated(_) => "emulated",
        }
    }
    /// How the team's module was obtained and what it cost.
    pub fn startup(&self) -> &Startup {
        match self {
            DeviceTeam::Cuda(c) => c.startup(),
            DeviceTeam::Emulated(e) => &e.startup,
        }
    }
}

impl fmt::Debug for DeviceTeam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceTeam::Cuda(c) => f.debug_tuple("Cuda").field(&c.name()).finish(),
            DeviceTeam::Emulated(p) => f.debug_tuple("Emulated").field(p).finish(),
        }
    }
}
