//! One runner's emulated backend: its memory, graphs and entry lookups, on the team's
//! emulated device (see the module docs for what it checks).

use super::device::{EmuDevice, EmuStream};
use super::{EmulatedTeam, Graph, Held, Op};
use crate::device::{Backend, DevPtr, GraphId};
use crate::error::Error;
use hawk::device::EntryArgs;
use std::collections::HashSet;
use std::sync::Arc;

/// What fresh emulated memory holds until it is zeroed: every byte `0xA5`.
const POISON: u64 = 0xa5a5_a5a5_a5a5_a5a5;

/// Iterations after which an emulated WHILE loop is an error, not a hang (a GPU would spin).
const WHILE_CAP: u32 = 1 << 24;

/// The emulated backend of one runner.
pub(crate) struct EmulatedBackend {
    dev: Arc<EmuDevice>,
    stream: Arc<EmuStream<Op>>,
    memory: Vec<Box<[u64]>>,
    /// Bytes reserved on the device, given back when the backend drops.
    reserved: usize,
    graphs: Vec<Graph>,
    /// Entries looked up so far (a first lookup is refused mid-capture).
    functions: HashSet<&'static str>,
    /// A WHILE graph's condition during a replay.
    condition: u32,
}

impl EmulatedBackend {
    /// A runner's backend on `team`'s device, with a stream of its own (binds the device's
    /// context on this thread).
    pub fn new(team: &EmulatedTeam) -> Result<Self, Error> {
        team.device.bind();
        team.device.enter("opening a runner")?;
        Ok(EmulatedBackend {
            dev: team.device.clone(),
            stream: Arc::default(),
            memory: Vec::new(),
            reserved: 0,
            graphs: Vec::new(),
            functions: HashSet::new(),
            condition: 0,
        })
    }

    /// Binds the device's context on this thread, as every CUDA backend call does first,
    /// and checks that it is usable.
    fn bind(&self, what: &str) -> Result<(), Error> {
        self.dev.bind();
        self.dev.enter(what)
    }

    /// Refuses `what` (an allocation, a first lookup) while this thread captures the stream.
    fn refuse_mid_capture(&self, what: &str) -> Result<(), Error> {
        if self.stream.captured_here() {
            self.stream.refuse_if_captured(what)?;
        }
        Ok(())
    }

    /// Runs one queued or recorded operation.
    ///
    /// # Safety
    /// The operation meets, now, the contract of the method that queued it (`zero`,
    /// `launch`, `while_graph`).
    unsafe fn exec(&mut self, op: &Op) -> Result<(), Error> {
        self.dev.usable()?;
        match op {
            // SAFETY: `zero`'s contract: `bytes` bytes from `p` lie in one of this backend's
            // allocations (host memory, freed only when the backend drops).
            Op::Zero(p, bytes) => unsafe { std::ptr::write_bytes(*p as *mut u8, 0, *bytes) },
            Op::Launch {
                grid,
                symbol,
                threads,
            } => {
                let seed = self.dev.launch(symbol)?;
                // SAFETY: `launch`'s contract: the arguments are valid for every thread of
                // the grid.
                unsafe { grid.run(*threads, seed) }
            }
            // SAFETY: `while_graph`'s contract: `c` is a 4-byte allocation of this backend.
            Op::SetCondition(c) => self.condition = unsafe { *(*c as *const u32) },
        }
        Ok(())
    }

    /// Runs `op` now, or records it while the stream is captured.
    ///
    /// # Safety
    /// As [`EmulatedBackend::exec`], when it runs.
    unsafe fn queue(&mut self, op: Op, what: &str) -> Result<(), Error> {
        self.dev.enter(what)?;
        match self.stream.record(op) {
            None => Ok(()),
            // SAFETY: this function's contract.
            Some(op) => unsafe { self.exec(&op) },
        }
    }

    /// Looks `symbol` up, once (refused as the first lookup mid-capture).
    fn function(&mut self, symbol: &'static str) -> Result<(), Error> {
        if !self.functions.contains(symbol) {
            self.dev.enter("looking up an entry")?;
            self.refuse_mid_capture(&format!(
                "the first lookup of entry `{symbol}` (loading a function mid-capture needs \
                 a CUDA 12.3 driver)"
            ))?;
            self.functions.insert(symbol);
        }
        Ok(())
    }
}

impl Drop for EmulatedBackend {
    fn drop(&mut self) {
        self.dev.release(self.reserved);
    }
}

impl Backend for EmulatedBackend {
    fn load_entries(&mut self, symbols: &[&'static str]) -> Result<(), Error> {
        self.bind("looking up entries")?;
        symbols.iter().try_for_each(|s| self.function(s))
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Error> {
        self.bind("an allocation")?;
        self.refuse_mid_capture("an allocation")?;
        self.dev.reserve(bytes)?;
        self.reserved += bytes;
        let words = bytes.div_ceil(8).max(1);
        let b = vec![POISON; words].into_boxed_slice();
        let p = b.as_ptr() as DevPtr;
        self.memory.push(b);
        // SAFETY: `p` was just allocated with `bytes` (the zeroing is queued on this
        // runner's stream, before anything it queues next).
        unsafe { self.queue(Op::Zero(p, bytes), "zeroing new memory") }?;
        Ok(p)
    }
    unsafe fn upload(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), Error> {
        self.bind("a host-to-device copy")?;
        self.stream.refuse_if_captured("a host-to-device copy")?;
        // SAFETY: `dst` lies in an allocation of this backend (host memory) with room for
        // `src.len()` bytes (the contract); that allocation is owned by the backend, not
        // borrowed as `src`, so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }
    unsafe fn download(&mut self, src: DevPtr, dst: &mut [u8]) -> Result<(), Error> {
        self.bind("a device-to-host copy")?;
        self.stream.refuse_if_captured("a device-to-host copy")?;
        // SAFETY: `src` lies in an allocation of this backend (host memory) holding
        // `dst.len()` bytes from it (the contract); `dst` is borrowed mutably, so they do
        // not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
    unsafe fn zero(&mut self, dst: DevPtr, bytes: usize) -> Result<(), Error> {
        self.bind("a memset")?;
        // SAFETY: `zero`'s contract, which `exec` needs, holds when the operation runs (at
        // once, or when a graph recording it replays: allocations live as long as the
        // backend).
        unsafe { self.queue(Op::Zero(dst, bytes), "a memset") }
    }
    unsafe fn launch<A: EntryArgs + 'static>(
        &mut self,
        args: A,
        threads: u32,
    ) -> Result<(), Error> {
        self.bind("a kernel launch")?;
        self.function(A::SYMBOL)?;
        let op = Op::Launch {
            grid: Arc::new(Held(args)),
            symbol: A::SYMBOL,
            threads,
        };
        // SAFETY: `launch`'s contract holds when the launch runs, at once or at a replay.
        unsafe { self.queue(op, "a kernel launch") }
    }
    fn begin_capture(&mut self) -> Result<(), Error> {
        self.bind("begin capture")?;
        self.stream.begin()
    }
    fn end_capture(&mut self) -> Result<GraphId, Error> {
        self.bind("end capture")?;
        let ops = self.stream.end()?;
        self.graphs.push(Graph {
            ops: ops.into(),
            is_while: false,
        });
        Ok(self.graphs.len() - 1)
    }
    unsafe fn while_graph(
        &mut self,
        cond: DevPtr,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<Result<GraphId, String>, Error> {
        self.bind("building a WHILE graph")?;
        self.begin_capture()?;
        let recorded = body(self).and_then(|_| {
            // SAFETY: `cond` is a 4-byte allocation of this backend (the contract).
            unsafe { self.queue(Op::SetCondition(cond), "the WHILE condition's setter") }
        });
        let ops = self.stream.end();
        recorded?;
        let ops = ops?;
        if self.dev.faults.fail_while_graph {
            return Err(Error::device(
                "emulated: instantiating the WHILE graph failed (injected fault)",
            ));
        }
        self.graphs.push(Graph {
            ops: ops.into(),
            is_while: true,
        });
        Ok(Ok(self.graphs.len() - 1))
    }
    unsafe fn replay(&mut self, graph: GraphId) -> Result<(), Error> {
        self.bind("a graph launch")?;
        let ops = self.graphs[graph].ops.clone();
        // A conditional node's handle starts each replay at its default, 1.
        self.condition = 1;
        for _ in 0..WHILE_CAP {
            for op in ops.iter() {
                // SAFETY: `replay`'s contract: the recorded work meets, now, the contracts it
                // was recorded under.
                unsafe { self.exec(op) }?;
            }
            if !self.graphs[graph].is_while || self.condition == 0 {
                return Ok(());
            }
        }
        Err(Error::device(format!(
            "emulated: a WHILE graph ran {WHILE_CAP} iterations without its condition \
             becoming 0"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::dptr;
    use crate::device::emulated::FaultPlan;
    use crate::device::startup::Startup;
    use hawk::device::ScanCounts;

    fn team(faults: FaultPlan) -> EmulatedTeam {
        EmulatedTeam::bare(faults, Startup::default())
    }

    /// Sums the 4 `u32`s at `counts` into `total` (a one-thread launch).
    fn scan(counts: DevPtr, total: DevPtr) -> ScanCounts {
        ScanCounts {
            n_chunks: 4,
            counts: dptr(counts),
            total: dptr(total),
        }
    }

    fn read(be: &mut EmulatedBackend, p: DevPtr) -> u32 {
        let mut b = [0u8; 4];
        // SAFETY: every `p` read here is a 4-byte (or larger) allocation of `be`.
        unsafe { be.download(p, &mut b) }.unwrap();
        u32::from_ne_bytes(b)
    }

    #[test]
    fn new_memory_is_zeroed_before_what_the_runner_queues_next() {
        let t = team(FaultPlan::none());
        let mut be = EmulatedBackend::new(&t).unwrap();
        let p = be.alloc(16).unwrap();
        // SAFETY: `p` holds 16 bytes.
        unsafe { be.upload(p, &7u32.to_ne_bytes()) }.unwrap();
        assert_eq!(read(&mut be, p), 7, "the zeroing landed over the upload");
        let q = be.alloc(4).unwrap();
        assert_eq!(read(&mut be, q), 0);
    }

    #[test]
    fn two_runners_of_one_team_capture_apart() {
        let t = team(FaultPlan::none());
        let mut a = EmulatedBackend::new(&t).unwrap();
        let mut b = EmulatedBackend::new(&t).unwrap();
        let (pa, pb) = (a.alloc(4).unwrap(), b.alloc(4).unwrap());
        a.begin_capture().unwrap();
        // SAFETY: `pa` and `pb` hold 4 bytes each.
        unsafe { a.zero(pa, 4) }.unwrap();
        // SAFETY: as above.
        unsafe { b.upload(pb, &9u32.to_ne_bytes()) }.unwrap();
        assert_eq!(read(&mut b, pb), 9);
        a.end_capture().unwrap();
    }

    #[test]
    fn copies_allocations_and_first_lookups_are_refused_mid_capture() {
        let t = team(FaultPlan::none());
        let mut be = EmulatedBackend::new(&t).unwrap();
        let (counts, total) = (be.alloc(16).unwrap(), be.alloc(4).unwrap());
        let refused = |be: &mut EmulatedBackend, what: &str, e: Error| {
            assert!(e.to_string().contains(what), "{e}");
            let e = be.end_capture().unwrap_err();
            assert!(e.to_string().contains("INVALIDATED"), "{e}");
        };
        be.begin_capture().unwrap();
        let e = be.alloc(4).unwrap_err();
        refused(&mut be, "an allocation on a stream being captured", e);
        be.begin_capture().unwrap();
        let e = read_err(&mut be, total);
        refused(&mut be, "a device-to-host copy", e);
        be.begin_capture().unwrap();
        // SAFETY: `counts` holds 4 `u32`s, `total` one.
        let e = unsafe { be.launch(scan(counts, total), 1) }.unwrap_err();
        refused(&mut be, "the first lookup of entry `hawk_scan_counts`", e);
        // Looked up before the capture, the entry is recorded and replayed.
        be.load_entries(&[ScanCounts::SYMBOL]).unwrap();
        // SAFETY: as above.
        unsafe { be.upload(counts, &[1u8; 16]) }.unwrap();
        be.begin_capture().unwrap();
        // SAFETY: as above.
        unsafe { be.launch(scan(counts, total), 1) }.unwrap();
        let g = be.end_capture().unwrap();
        // SAFETY: the graph's launch reads `counts` and writes `total`, both alive.
        unsafe { be.replay(g) }.unwrap();
        assert_eq!(read(&mut be, total), 4 * 0x0101_0101);
    }

    fn read_err(be: &mut EmulatedBackend, p: DevPtr) -> Error {
        let mut b = [0u8; 4];
        // SAFETY: `p` is a 4-byte allocation of `be`.
        unsafe { be.download(p, &mut b) }.unwrap_err()
    }

    #[test]
    fn every_call_needs_the_context_current_on_its_thread() {
        let t = team(FaultPlan::none());
        let dev = t.device.clone();
        std::thread::spawn(move || {
            let e = dev.enter("a memset").unwrap_err();
            assert!(matches!(e, Error::ContextLost { .. }), "{e}");
            assert!(e.to_string().contains("CUDA_ERROR_INVALID_CONTEXT"), "{e}");
            dev.bind();
            dev.enter("a memset").unwrap();
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_trap_breaks_every_runner_of_the_device() {
        let t = team(FaultPlan {
            trap_launch: Some(0),
            ..FaultPlan::none()
        });
        let mut a = EmulatedBackend::new(&t).unwrap();
        let mut b = EmulatedBackend::new(&t).unwrap();
        let (counts, total) = (a.alloc(16).unwrap(), a.alloc(4).unwrap());
        let q = b.alloc(4).unwrap();
        // SAFETY: `counts` holds 4 `u32`s, `total` one.
        let e = unsafe { a.launch(scan(counts, total), 1) }.unwrap_err();
        assert!(matches!(e, Error::KernelTrap { .. }), "{e}");
        let e = read_err(&mut b, q);
        assert!(
            e.to_string()
                .contains("launch 0 (hawk_scan_counts) trapped"),
            "{e}"
        );
        assert!(EmulatedBackend::new(&t).is_err());
    }

    #[test]
    fn a_while_graph_starts_each_replay_at_1_and_stops_where_its_setter_reads_0() {
        let t = team(FaultPlan::none());
        let mut be = EmulatedBackend::new(&t).unwrap();
        let (counts, total, cond) = (
            be.alloc(16).unwrap(),
            be.alloc(4).unwrap(),
            be.alloc(4).unwrap(),
        );
        be.load_entries(&[ScanCounts::SYMBOL]).unwrap();
        let mut body = |be: &mut EmulatedBackend| {
            // SAFETY: `counts` holds 4 `u32`s, `total` one.
            unsafe { be.launch(scan(counts, total), 1) }
        };
        // SAFETY: `cond` is a 4-byte allocation of `be`.
        let g = unsafe { be.while_graph(cond, &mut body) }.unwrap().unwrap();
        for _ in 0..2 {
            // The condition in memory is 0 (never 1): the body runs once per replay.
            let before = t.device.launches();
            // SAFETY: the graph's launch reads `counts` and writes `total`, both alive.
            unsafe { be.replay(g) }.unwrap();
            assert_eq!(t.device.launches() - before, 1);
        }
    }

    #[test]
    fn blocks_run_in_a_shuffled_order_that_changes_between_launches() {
        let (a, b) = (
            super::super::block_order(64, 1),
            super::super::block_order(64, 2),
        );
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..64).collect::<Vec<_>>());
        assert_ne!(a, b);
        assert_ne!(a, sorted);
    }
}
