//! The emulated device: device memory is host memory, a launch runs every thread of its
//! grid (blocks of `BLOCK`) on the CPU, calling the same `hawk::device` bodies the GPU
//! entries call, and a graph is the recorded launch sequence, replayed in order.
//!
//! It is as strict as a GPU where a GPU is strict, so that code which works here because
//! the CPU forgives it fails a test instead of a GPU run. Its checks:
//! - **A current context per thread**: every backend call fails with `ContextLost`
//!   (`CUDA_ERROR_INVALID_CONTEXT`) unless the calling thread has bound the device's
//!   context, as a runner moved to another thread would find on CUDA.
//! - **Streams and captures**: work queued on a captured stream is recorded, whichever
//!   thread queued it; copies and synchronizations on a captured stream, and allocations
//!   and first entry lookups by the capturing thread, are refused and invalidate the
//!   capture (a driver before CUDA 12.3 refuses loading a function mid-capture); a capture
//!   ended by another thread, or begun twice, fails. (Memory is freed only when a runner's
//!   backend drops, never mid-run, so there is no free to refuse.) Each runner has a
//!   stream of its own, as each CUDA runner has.
//! - **New memory is poisoned** (every byte `0xA5`): zeroing is work queued on the
//!   allocating runner's stream, ordered before what that runner queues next.
//! - **A trap or a lost context breaks the device**, every runner of the team, as it breaks
//!   a GPU's primary context for the whole process; fault counts are per device.
//! - **Blocks run in a shuffled order** (a new order at every launch), so that no result
//!   may depend on the order blocks run in.
//! - **A WHILE graph's condition** is 1 at the start of each replay and changed only by the
//!   setter at the end of each iteration of its body, as a conditional node's handle.

mod backend;
mod device;

pub(crate) use backend::EmulatedBackend;

use super::cache::DeviceIdentity;
use super::startup::{self, Module, ModuleLoader, Startup};
use super::{BLOCK, DevPtr};
use crate::error::Error;
use device::EmuDevice;
use hawk::device::EntryArgs;
use std::sync::Arc;

/// One queued operation, as a graph records it.
#[derive(Clone)]
enum Op {
    Zero(DevPtr, usize),
    Launch {
        grid: Arc<dyn Grid>,
        symbol: &'static str,
        threads: u32,
    },
    /// A WHILE body's last operation: its condition becomes the `u32` here.
    SetCondition(DevPtr),
}

/// A launch's arguments, run over a grid: every thread `b * BLOCK + t` of
/// `ceil(threads / BLOCK)` blocks calls the entry's body exactly as the GPU entry does
/// (bounds checks included), the blocks in an order shuffled by `seed`.
trait Grid: Send + Sync {
    /// # Safety
    /// The arguments meet their entry's contract for every thread of the grid, now.
    unsafe fn run(&self, threads: u32, seed: u64);
}

/// The blocks `0..grid` in an order shuffled by `seed` (Fisher-Yates over a SplitMix64
/// sequence: the order only has to differ between launches, not be random).
fn block_order(grid: u32, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..grid).collect();
    let mut z = seed;
    for i in (1..order.len()).rev() {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    order
}

/// Entry arguments held by the emulated device. Their pointers are addresses of this
/// backend's memory (host memory), which travels with the backend.
struct Held<A>(A);

// SAFETY: the pointers address memory the emulated backend owns and moves with it; a
// launch runs on the thread that drives the backend.
unsafe impl<A> Send for Held<A> {}
// SAFETY: as for `Send`: a shared `Held` is run by the thread that drives the backend only.
unsafe impl<A> Sync for Held<A> {}

impl<A: EntryArgs> Grid for Held<A> {
    unsafe fn run(&self, threads: u32, seed: u64) {
        let grid = threads.div_ceil(BLOCK).max(1);
        for b in block_order(grid, seed) {
            for t in 0..BLOCK {
                // SAFETY: `b * BLOCK + t` is a thread of the grid, for which the arguments
                // meet the entry's contract (this method's contract).
                unsafe { self.0.thread((b * BLOCK + t) as usize) }
            }
        }
    }
}

/// A recorded graph: its operations and whether it is a WHILE loop (repeated while the
/// condition its body's setter leaves is non-zero).
struct Graph {
    /// Shared, so that a replay takes it without copying.
    ops: Arc<[Op]>,
    is_while: bool,
}

/// Faults the emulated device injects, to test the device team's error paths without a GPU.
/// Counts are per device (every runner of the team counts together), from 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultPlan {
    /// Allocation number `n` fails with [`Error::DeviceOutOfMemory`].
    pub fail_alloc: Option<usize>,
    /// Device memory in bytes: an allocation past it fails with out-of-memory.
    pub memory_bytes: Option<usize>,
    /// Executed kernel launch number `n` (graph replays count each launch) traps:
    /// [`Error::KernelTrap`], and the device is unusable afterwards, for every runner of
    /// the team (as a trap breaks a GPU's context for the whole process).
    pub trap_launch: Option<u64>,
    /// The context is lost before executed kernel launch number `n`: that call and every
    /// later one, by any runner of the team, fail with [`Error::ContextLost`].
    pub lose_context_at_launch: Option<u64>,
    /// Building a WHILE graph fails, as a driver error while capturing its body or
    /// instantiating it would.
    pub fail_while_graph: bool,
}

impl FaultPlan {
    /// No faults.
    pub fn none() -> Self {
        Self::default()
    }
}

/// The emulated device team: one emulated device (its context, memory and sticky errors
/// shared by the team's runners, each with a stream of its own), the faults it injects and
/// how it started.
#[derive(Clone)]
pub struct EmulatedTeam {
    /// Faults the team's emulated device injects.
    pub faults: FaultPlan,
    /// How the module was obtained: a JIT (cold) or a
    /// cache hit (warm) exactly as on a GPU, with an emulated image.
    pub startup: Startup,
    device: Arc<EmuDevice>,
}

impl std::fmt::Debug for EmulatedTeam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmulatedTeam")
            .field("faults", &self.faults)
            .field("startup", &self.startup)
            .finish_non_exhaustive()
    }
}

impl EmulatedTeam {
    /// An emulated team injecting `faults`, started like a GPU through the same build
    /// cache, as a device no built-in cubin matches (see [`EMULATED_NAME`]). `module` has
    /// passed `check_entries` (deploy checks it for every device team).
    pub(crate) fn new(faults: FaultPlan, module: &Module<'_>) -> Result<Self, Error> {
        let mut loader = EmulatedLoader {
            id: DeviceIdentity {
                name: EMULATED_NAME.into(),
                compute_capability: (0, 0),
                driver_version: 0,
            },
            image: emulated_image(module.ptx),
        };
        let startup = startup::obtain(&mut loader, module)?.1;
        Ok(Self::bare(faults, startup))
    }

    /// A team on a new emulated device, without a module (unit tests need no more).
    fn bare(faults: FaultPlan, startup: Startup) -> Self {
        EmulatedTeam {
            faults,
            startup,
            device: EmuDevice::new(faults),
        }
    }
}

/// The emulated device's name in its cache key (compute capability 0.0, driver 0).
pub const EMULATED_NAME: &str = "eagle emulated device";

/// The emulated "JIT": its image of a module is a tag and the PTX's SHA-256, and loading
/// accepts exactly that image (as a driver refuses an image that is not a module for it).
struct EmulatedLoader {
    id: DeviceIdentity,
    image: Vec<u8>,
}

fn emulated_image(ptx: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    [b"eagle emulated image\n".as_slice(), &Sha256::digest(ptx)].concat()
}

impl ModuleLoader for EmulatedLoader {
    type Handle = ();
    fn identity(&self) -> &DeviceIdentity {
        &self.id
    }
    fn load_image(&mut self, image: &[u8]) -> Result<(), String> {
        if image == self.image {
            Ok(())
        } else {
            Err("emulated: not an image of this module".into())
        }
    }
    fn jit(&mut self, _ptx: &str) -> Result<(Vec<u8>, ()), Error> {
        // The loader was made for this module's PTX: its image is already computed.
        Ok((self.image.clone(), ()))
    }
}
