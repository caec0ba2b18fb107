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

use crate::error::Error;
use hawk::Kernel;
use hawk_host::HostReal;
use std::fmt;
use std::sync::Arc;

/// A device address (a `CUdeviceptr` on CUDA, a host address on the emulated device).
pub(crate) type DevPtr = u64;

/// Threads per block of every launch.
pub(crate) const BLOCK: u32 = 256;

/// One kernel argument as the bytes the entry expects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Arg {
    /// A 4-byte value (`u32`, `f32`).
    B4(u32),
    /// An 8-byte value (`u64`, `f64`, a pointer).
    B8(u64),
}

impl Arg {
    /// A pointer argument.
    pub fn ptr(p: DevPtr) -> Self {
        Arg::B8(p)
    }
    /// A `Param` value of the kernel's element type.
    pub fn real<R: HostReal>(v: R) -> Self {
        match R::BYTES {
            8 => Arg::B8(unsafe { std::mem::transmute_copy::<R, u64>(&v) }),
            _ => Arg::B4(unsafe { std::mem::transmute_copy::<R, u32>(&v) }),
        }
    }
    pub fn as_u64(self) -> u64 {
        match self {
            Arg::B4(v) => u64::from(v),
            Arg::B8(v) => v,
        }
    }
}

/// The entry points the orchestration launches (kernel entries and helper kernels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Entry {
    /// `hawk_<name>(n, k, planes.., terminated, active)`.
    Step,
    /// `hawk_<name>_indexed(n_active, k, idx, planes.., terminated, active)`.
    StepIndexed,
    /// `hawk_count_chunks(n_slots, ids, terminated, counts)`, one thread per chunk.
    CountChunks,
    /// `hawk_scan_counts(n_chunks, counts, total)`, one thread.
    ScanCounts,
    /// `hawk_write_chunks(n_slots, ids, terminated, offsets, ids_out)`, one thread per chunk.
    WriteChunks,
    /// `hawk_gather_b{1,4,8}(n, ids, home, dense)`.
    Gather(u8),
    /// `hawk_scatter_b{1,4,8}(n, ids, dense, home)`.
    Scatter(u8),
    /// `hawk_while_condition(active, launches, max_launches, history, history_len, cond)`.
    WhileCondition,
}

impl Entry {
    /// The entry's symbol in the PTX module.
    pub fn symbol<K: Kernel>(self) -> String {
        match self {
            Entry::Step => K::ENTRY.to_owned(),
            Entry::StepIndexed => format!("{}_indexed", K::ENTRY),
            Entry::CountChunks => "hawk_count_chunks".into(),
            Entry::ScanCounts => "hawk_scan_counts".into(),
            Entry::WriteChunks => "hawk_write_chunks".into(),
            Entry::Gather(b) => format!("hawk_gather_b{b}"),
            Entry::Scatter(b) => format!("hawk_scatter_b{b}"),
            Entry::WhileCondition => "hawk_while_condition".into(),
        }
    }
}

impl Entry {
    /// Every entry a device team may launch for one kernel.
    pub const ALL: [Entry; 12] = [
        Entry::Step,
        Entry::StepIndexed,
        Entry::CountChunks,
        Entry::ScanCounts,
        Entry::WriteChunks,
        Entry::Gather(1),
        Entry::Gather(4),
        Entry::Gather(8),
        Entry::Scatter(1),
        Entry::Scatter(4),
        Entry::Scatter(8),
        Entry::WhileCondition,
    ];
}

/// Refuses a module that lacks an entry the device team would launch for `K` (its step
/// entries, the compaction and gather/scatter helpers, the WHILE condition), so a kernel
/// missing from the module fails at deploy, the same way on every device team, instead of
/// at its first launch on a GPU.
pub(crate) fn check_entries<K: Kernel>(module: &Module<'_>) -> Result<(), Error> {
    let have: std::collections::HashSet<&str> = module.entries().collect();
    let missing: Vec<String> = Entry::ALL
        .iter()
        .map(|e| e.symbol::<K>())
        .filter(|s| !have.contains(s.as_str()))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::MissingEntries {
            kernel: K::NAME,
            module: module.name.to_owned(),
            missing,
        })
    }
}

/// A captured graph, by index into the backend's list.
pub(crate) type GraphId = usize;

/// What the device orchestration needs from a device: memory, launches and graphs.
///
/// Launches, zeroing and replays are queued in order (a stream); `download` waits for
/// everything queued before it. Between `begin_capture` and `end_capture` launches and
/// zeroing are recorded into a graph instead of run.
pub(crate) trait Backend: Sized {
    /// Allocates `bytes` of zeroed device memory, freed when the backend drops.
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Error>;
    /// Copies host bytes to the device (complete when it returns).
    fn upload(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), Error>;
    /// Waits for queued work, then copies device bytes to the host.
    fn download(&mut self, src: DevPtr, dst: &mut [u8]) -> Result<(), Error>;
    /// Queues zeroing `bytes` at `dst` (capturable).
    fn zero(&mut self, dst: DevPtr, bytes: usize) -> Result<(), Error>;
    /// Queues a launch of `threads` threads (blocks of [`BLOCK`]) of `entry` (capturable).
    fn launch<K: Kernel>(&mut self, entry: Entry, threads: u32, args: &[Arg]) -> Result<(), Error>
    where
        K::Real: HostReal;
    /// Starts recording queued work into a graph.
    fn begin_capture(&mut self) -> Result<(), Error>;
    /// Stops recording; the graph is instantiated and ready to replay.
    fn end_capture(&mut self) -> Result<GraphId, Error>;
    /// A graph whose body (recorded by `body`) repeats while the `u32` at `cond` is non-zero
    /// after an iteration (the body runs at least once). `Ok(Err(reason))` when this device
    /// cannot build conditional WHILE nodes.
    fn while_graph<K: Kernel>(
        &mut self,
        cond: DevPtr,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<Result<GraphId, String>, Error>
    where
        K::Real: HostReal;
    /// Queues a replay of a graph.
    fn replay(&mut self, graph: GraphId) -> Result<(), Error>;
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
