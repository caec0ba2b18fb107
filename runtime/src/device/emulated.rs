//! The emulated device: device memory is host memory, a launch runs every thread of its
//! grid (blocks of `BLOCK`) on the CPU in order, calling the same `hawk::device` bodies the
//! GPU entries call, and a graph is the recorded launch sequence, replayed in order.

use super::cache::DeviceIdentity;
use super::startup::{self, Module, ModuleLoader, Startup};
use super::{BLOCK, Backend, DevPtr, GraphId};
use crate::error::Error;
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
}

/// A launch's arguments, run over a grid: every thread `b * BLOCK + t` of
/// `ceil(threads / BLOCK)` blocks calls the entry's body exactly as the GPU entry does
/// (bounds checks included).
trait Grid: Send + Sync {
    /// # Safety
    /// The arguments meet their entry's contract for every thread of the grid, now.
    unsafe fn run(&self, threads: u32);
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
    unsafe fn run(&self, threads: u32) {
        let grid = threads.div_ceil(BLOCK).max(1);
        for i in 0..(grid * BLOCK) as usize {
            // SAFETY: `i` is a thread of the grid, for which the arguments meet the entry's
            // contract (this method's contract).
            unsafe { self.0.thread(i) }
        }
    }
}

struct Graph {
    ops: Vec<Op>,
    /// For a WHILE graph: repeat the ops while the `u32` here is non-zero.
    while_cond: Option<DevPtr>,
}

/// Faults the emulated device injects, to test the device team's error paths without a GPU.
/// Counts are per runner (each runner has its own emulated device), from 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaultPlan {
    /// Allocation number `n` fails with [`Error::DeviceOutOfMemory`].
    pub fail_alloc: Option<usize>,
    /// Device memory in bytes: an allocation past it fails with out-of-memory.
    pub memory_bytes: Option<usize>,
    /// Executed kernel launch number `n` (graph replays count each launch) traps:
    /// [`Error::KernelTrap`], and the context is unusable afterwards (as on CUDA).
    pub trap_launch: Option<u64>,
    /// The context is lost before executed kernel launch number `n`: that call and every
    /// later one fail with [`Error::ContextLost`].
    pub lose_context_at_launch: Option<u64>,
}

impl FaultPlan {
    /// No faults.
    pub fn none() -> Self {
        Self::default()
    }
}

/// The emulated device team: the faults its runners inject and how it started.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmulatedTeam {
    /// Faults each runner's emulated device injects.
    pub faults: FaultPlan,
    /// How the module was obtained: a JIT (cold) or a
    /// cache hit (warm) exactly as on a GPU, with an emulated image.
    pub startup: Startup,
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
        Ok(EmulatedTeam { faults, startup })
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

/// The emulated device's state for one runner: its memory, graphs, capture and faults.
#[derive(Default)]
pub(crate) struct EmulatedBackend {
    memory: Vec<Box<[u64]>>,
    graphs: Vec<Graph>,
    recording: Option<Vec<Op>>,
    faults: FaultPlan,
    allocs: usize,
    allocated: usize,
    launches: u64,
    /// Why the context is unusable, once it is.
    broken: Option<Error>,
}

impl EmulatedBackend {
    /// An emulated device that injects `faults`.
    pub fn with_faults(faults: FaultPlan) -> Self {
        EmulatedBackend {
            faults,
            ..Self::default()
        }
    }
    /// Fails every call once the context is broken.
    fn usable(&self) -> Result<(), Error> {
        match &self.broken {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
    /// Runs one queued or recorded operation.
    ///
    /// # Safety
    /// The operation meets, now, the contract of the method that queued it (`zero`,
    /// `launch`).
    unsafe fn exec(&mut self, op: &Op) -> Result<(), Error> {
        self.usable()?;
        match op {
            // SAFETY: `zero`'s contract: `bytes` bytes from `p` lie in one of this backend's
            // allocations (host memory, freed only when the backend drops).
            Op::Zero(p, bytes) => unsafe { std::ptr::write_bytes(*p as *mut u8, 0, *bytes) },
            Op::Launch {
                grid,
                symbol,
                threads,
            } => {
                let n = self.launches;
                self.launches += 1;
                if self.faults.lose_context_at_launch == Some(n) {
                    let e = Error::context_lost(format!("emulated: context lost at launch {n}"));
                    self.broken = Some(e.clone());
                    return Err(e);
                }
                if self.faults.trap_launch == Some(n) {
                    let e = Error::kernel_trap(format!("emulated: launch {n} ({symbol}) trapped"));
                    self.broken = Some(e.clone());
                    return Err(e);
                }
                // SAFETY: `launch`'s contract: the arguments are valid for every thread of
                // the grid.
                unsafe { grid.run(*threads) }
            }
        }
        Ok(())
    }
    /// Runs `op` now, or records it while capturing.
    ///
    /// # Safety
    /// As [`EmulatedBackend::exec`], when it runs.
    unsafe fn queue(&mut self, op: Op) -> Result<(), Error> {
        self.usable()?;
        match &mut self.recording {
            Some(ops) => {
                ops.push(op);
                Ok(())
            }
            // SAFETY: this function's contract.
            None => unsafe { self.exec(&op) },
        }
    }
}

impl Backend for EmulatedBackend {
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Error> {
        self.usable()?;
        let n = self.allocs;
        self.allocs += 1;
        let over = self
            .faults
            .memory_bytes
            .is_some_and(|m| self.allocated + bytes > m);
        if self.faults.fail_alloc == Some(n) || over {
            return Err(Error::out_of_memory(format!(
                "emulated: allocation {n} of {bytes} B failed ({} B in use)",
                self.allocated
            )));
        }
        let words = bytes.div_ceil(8).max(1);
        let b = vec![0u64; words].into_boxed_slice();
        let p = b.as_ptr() as DevPtr;
        self.memory.push(b);
        self.allocated += bytes;
        Ok(p)
    }
    unsafe fn upload(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), Error> {
        self.usable()?;
        // SAFETY: `dst` lies in an allocation of this backend (host memory) with room for
        // `src.len()` bytes (the contract); that allocation is owned by the backend, not
        // borrowed as `src`, so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }
    unsafe fn download(&mut self, src: DevPtr, dst: &mut [u8]) -> Result<(), Error> {
        self.usable()?;
        // SAFETY: `src` lies in an allocation of this backend (host memory) holding
        // `dst.len()` bytes from it (the contract); `dst` is borrowed mutably, so they do
        // not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
    unsafe fn zero(&mut self, dst: DevPtr, bytes: usize) -> Result<(), Error> {
        // SAFETY: `zero`'s contract, which `exec` needs, holds when the operation runs (at
        // once, or when a graph recording it replays: allocations live as long as the
        // backend).
        unsafe { self.queue(Op::Zero(dst, bytes)) }
    }
    unsafe fn launch<A: EntryArgs + 'static>(
        &mut self,
        args: A,
        threads: u32,
    ) -> Result<(), Error> {
        let op = Op::Launch {
            grid: Arc::new(Held(args)),
            symbol: A::SYMBOL,
            threads,
        };
        // SAFETY: `launch`'s contract holds when the launch runs, at once or at a replay.
        unsafe { self.queue(op) }
    }
    fn begin_capture(&mut self) -> Result<(), Error> {
        self.usable()?;
        self.recording = Some(Vec::new());
        Ok(())
    }
    fn end_capture(&mut self) -> Result<GraphId, Error> {
        let ops = self.recording.take().unwrap_or_default();
        self.usable()?;
        self.graphs.push(Graph {
            ops,
            while_cond: None,
        });
        Ok(self.graphs.len() - 1)
    }
    unsafe fn while_graph(
        &mut self,
        cond: DevPtr,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<Result<GraphId, String>, Error> {
        self.begin_capture()?;
        let recorded = body(self);
        let g = self.end_capture()?;
        recorded?;
        self.graphs[g].while_cond = Some(cond);
        Ok(Ok(g))
    }
    unsafe fn replay(&mut self, graph: GraphId) -> Result<(), Error> {
        self.usable()?;
        let ops = self.graphs[graph].ops.clone();
        let while_cond = self.graphs[graph].while_cond;
        loop {
            for op in &ops {
                // SAFETY: `replay`'s contract: the recorded work meets, now, the contracts it
                // was recorded under.
                unsafe { self.exec(op) }?;
            }
            match while_cond {
                // SAFETY: `c` is the 4-byte condition allocation the WHILE graph was built
                // with (`while_graph`'s contract), alive as long as the backend.
                Some(c) if unsafe { *(c as *const u32) } != 0 => continue,
                _ => break,
            }
        }
        Ok(())
    }
}
