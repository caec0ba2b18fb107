//! What the emulated device shares between the runners of one team, as a GPU shares it
//! between everything in a process that uses its primary context: the context (current
//! per thread), its sticky errors, its memory and fault counters, and streams with their
//! capture state. Each check here is one a CUDA driver makes; the messages name the
//! driver's error code.

use super::FaultPlan;
use crate::error::Error;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

thread_local! {
    /// The emulated context current on this thread (0: none), as `cuCtxSetCurrent` keeps.
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// Context identities, unique in the process (0 is "none").
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Locks `m`, going on after a panic elsewhere (the state stays consistent: every
/// critical section here is a few assignments).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One emulated GPU: its context and what every runner on it shares.
#[derive(Debug)]
pub(crate) struct EmuDevice {
    id: u64,
    pub faults: FaultPlan,
    state: Mutex<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// The first sticky error (a trap, a lost context): every later call fails with it.
    broken: Option<Error>,
    /// Kernel launches executed so far, by every runner.
    launches: u64,
    /// Allocations made so far and bytes in use, by every runner.
    allocs: usize,
    allocated: usize,
}

impl EmuDevice {
    /// A new device (a new context) injecting `faults`.
    pub fn new(faults: FaultPlan) -> Arc<Self> {
        Arc::new(EmuDevice {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            faults,
            state: Mutex::new(Shared::default()),
        })
    }

    /// Makes this device's context current on the calling thread.
    pub fn bind(&self) {
        CURRENT.set(self.id);
    }

    /// Fails once the context is broken (every runner of the device alike).
    pub fn usable(&self) -> Result<(), Error> {
        match &lock(&self.state).broken {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// The checks of every driver call: the context is usable and current on this thread.
    pub fn enter(&self, what: &str) -> Result<(), Error> {
        self.usable()?;
        if CURRENT.get() != self.id {
            return Err(Error::context_lost(format!(
                "emulated: {what} on a thread where the device's context is not current \
                 (CUDA_ERROR_INVALID_CONTEXT)"
            )));
        }
        Ok(())
    }

    /// Counts an executed launch and returns its number; the fault plan's trap or lost
    /// context breaks the whole device (every runner of the team) from this launch on.
    pub fn launch(&self, symbol: &str) -> Result<u64, Error> {
        let mut s = lock(&self.state);
        if let Some(e) = &s.broken {
            return Err(e.clone());
        }
        let n = s.launches;
        s.launches += 1;
        let e = if self.faults.lose_context_at_launch == Some(n) {
            Error::context_lost(format!("emulated: context lost at launch {n}"))
        } else if self.faults.trap_launch == Some(n) {
            Error::kernel_trap(format!("emulated: launch {n} ({symbol}) trapped"))
        } else {
            return Ok(n);
        };
        s.broken = Some(e.clone());
        Err(e)
    }

    /// Kernel launches executed so far, by every runner.
    #[cfg(test)]
    pub fn launches(&self) -> u64 {
        lock(&self.state).launches
    }

    /// Accounts for an allocation of `bytes`, or refuses it as the fault plan says.
    pub fn reserve(&self, bytes: usize) -> Result<(), Error> {
        let mut s = lock(&self.state);
        let n = s.allocs;
        s.allocs += 1;
        let over = self
            .faults
            .memory_bytes
            .is_some_and(|m| s.allocated + bytes > m);
        if self.faults.fail_alloc == Some(n) || over {
            return Err(Error::out_of_memory(format!(
                "emulated: allocation {n} of {bytes} B failed ({} B in use)",
                s.allocated
            )));
        }
        s.allocated += bytes;
        Ok(())
    }

    /// Gives back `bytes` of allocations freed.
    pub fn release(&self, bytes: usize) {
        let mut s = lock(&self.state);
        s.allocated = s.allocated.saturating_sub(bytes);
    }
}

/// A stream's capture: what it recorded, by which thread, and whether an illegal call
/// invalidated it.
struct Capture<Op> {
    ops: Vec<Op>,
    thread: ThreadId,
    invalid: Option<String>,
}

/// An emulated stream. Work queued on it runs at once, except while it is captured: then
/// it is recorded, whichever thread queued it (as on CUDA), and calls that need the stream
/// to finish its work (copies, synchronizations) are refused and invalidate the capture.
pub(crate) struct EmuStream<Op> {
    capture: Mutex<Option<Capture<Op>>>,
}

impl<Op> Default for EmuStream<Op> {
    fn default() -> Self {
        EmuStream {
            capture: Mutex::new(None),
        }
    }
}

impl<Op> EmuStream<Op> {
    /// Records `op` when captured; otherwise hands it back to be run now.
    pub fn record(&self, op: Op) -> Option<Op> {
        match lock(&self.capture).as_mut() {
            Some(c) => {
                c.ops.push(op);
                None
            }
            None => Some(op),
        }
    }

    /// Refuses `what` (a copy, a synchronization) while the stream is captured, and
    /// invalidates the capture, as the driver does.
    pub fn refuse_if_captured(&self, what: &str) -> Result<(), Error> {
        if let Some(c) = lock(&self.capture).as_mut() {
            let why = format!(
                "emulated: {what} on a stream being captured \
                 (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED); the capture is invalidated"
            );
            c.invalid.get_or_insert_with(|| why.clone());
            return Err(Error::device(why));
        }
        Ok(())
    }

    /// Whether the calling thread is capturing this stream.
    pub fn captured_here(&self) -> bool {
        lock(&self.capture)
            .as_ref()
            .is_some_and(|c| c.thread == std::thread::current().id())
    }

    /// Starts capturing (refused when a capture is already under way).
    pub fn begin(&self) -> Result<(), Error> {
        let mut c = lock(&self.capture);
        if c.is_some() {
            return Err(Error::device(
                "emulated: begin capture on a stream already being captured \
                 (CUDA_ERROR_ILLEGAL_STATE)",
            ));
        }
        *c = Some(Capture {
            ops: Vec::new(),
            thread: std::thread::current().id(),
            invalid: None,
        });
        Ok(())
    }

    /// Ends the capture and returns what it recorded; fails when it was invalidated, never
    /// started, or started by another thread (the capture ends either way).
    pub fn end(&self) -> Result<Vec<Op>, Error> {
        let Some(c) = lock(&self.capture).take() else {
            return Err(Error::device(
                "emulated: end capture on a stream not being captured (CUDA_ERROR_ILLEGAL_STATE)",
            ));
        };
        if c.thread != std::thread::current().id() {
            return Err(Error::device(
                "emulated: end capture by another thread than began it \
                 (CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)",
            ));
        }
        if let Some(why) = c.invalid {
            return Err(Error::device(format!(
                "emulated: the capture was invalidated (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED): {why}"
            )));
        }
        Ok(c.ops)
    }
}
