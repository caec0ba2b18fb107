//! What the CUDA teams of one process share per GPU: the primary context's health (a trap
//! breaks it for every team on that GPU), and loaded modules, so that deploying the same
//! module on the same GPU again reuses the context and the loaded module instead of
//! creating and loading them again (a 12 MB module takes a noticeable part of a second).

use crate::error::Error;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The health of one GPU's primary context in this process, shared by every team on it.
#[derive(Debug)]
pub(crate) struct GpuHealth {
    ordinal: usize,
    broken: Mutex<Option<Error>>,
}

/// Each GPU's health while any team on it lives (a context nobody holds is released, and
/// the next one starts healthy).
static HEALTH: Mutex<Vec<(usize, Weak<GpuHealth>)>> = Mutex::new(Vec::new());

/// A loaded module kept for later deploys: its GPU, its module's digest, and the module.
type Kept = (usize, [u8; 32], Arc<dyn std::any::Any + Send + Sync>);

/// Loaded modules, kept for the life of the process unless the GPU's context breaks.
static LOADED: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

impl GpuHealth {
    /// GPU `ordinal`'s health (the live one, or a new healthy one).
    pub fn of(ordinal: usize) -> Arc<GpuHealth> {
        let mut all = lock(&HEALTH);
        all.retain(|(_, w)| w.strong_count() > 0);
        if let Some(h) = all
            .iter()
            .find(|(o, _)| *o == ordinal)
            .and_then(|(_, w)| w.upgrade())
        {
            return h;
        }
        let h = Arc::new(GpuHealth {
            ordinal,
            broken: Mutex::new(None),
        });
        all.push((ordinal, Arc::downgrade(&h)));
        h
    }

    /// Fails, with the error that broke it, once the context is broken.
    pub fn check(&self) -> Result<(), Error> {
        match &*lock(&self.broken) {
            None => Ok(()),
            Some(first) => Err(broken_by(self.ordinal, first)),
        }
    }

    /// Passes `e` on; a trap or a lost context is recorded first, so that every later call
    /// by any team on this GPU fails at once saying what broke it, and the GPU's loaded
    /// modules are dropped from the process cache (the context is released once the
    /// teams that hold it are dropped).
    pub fn note(&self, e: Error) -> Error {
        if e.breaks_context() {
            lock(&self.broken).get_or_insert_with(|| e.clone());
            lock(&LOADED).retain(|(o, _, _)| *o != self.ordinal);
        }
        e
    }
}

/// The error of a call on a GPU whose context `first` broke earlier in this process.
fn broken_by(ordinal: usize, first: &Error) -> Error {
    let message = format!(
        "GPU {ordinal}'s context was broken earlier in this process ({first}); every team on \
         it fails until all of them are dropped (then a new deploy starts a fresh context)"
    );
    match first {
        Error::KernelTrap { code, .. } => Error::KernelTrap {
            message,
            code: code.clone(),
        },
        _ => Error::context_lost(message),
    }
}

/// The module loaded on GPU `ordinal` with this digest, if this process loaded it and its
/// context is healthy.
pub(crate) fn loaded<T: Send + Sync + 'static>(
    ordinal: usize,
    digest: &[u8; 32],
) -> Option<Arc<T>> {
    let all = lock(&LOADED);
    let (_, _, any) = all.iter().find(|(o, d, _)| *o == ordinal && d == digest)?;
    any.clone().downcast::<T>().ok()
}

/// Keeps `core` (a loaded module) for later deploys of the same module on GPU `ordinal`.
pub(crate) fn keep<T: Send + Sync + 'static>(ordinal: usize, digest: [u8; 32], core: Arc<T>) {
    let mut all = lock(&LOADED);
    all.retain(|(o, d, _)| !(*o == ordinal && *d == digest));
    all.push((ordinal, digest, core));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trap_breaks_the_gpu_for_every_team_until_all_are_dropped() {
        // An ordinal no other test uses (no GPU is touched: this is bookkeeping only).
        let (a, b) = (GpuHealth::of(1000), GpuHealth::of(1000));
        assert!(Arc::ptr_eq(&a, &b));
        keep(1000, [7; 32], Arc::new(5u32));
        assert_eq!(loaded::<u32>(1000, &[7; 32]).as_deref(), Some(&5));
        let _ = a.note(Error::device("not sticky"));
        b.check().unwrap();
        let _ = a.note(Error::kernel_trap("launch 3 trapped"));
        let e = b.check().unwrap_err();
        assert!(matches!(e, Error::KernelTrap { .. }), "{e}");
        assert!(e.to_string().contains("launch 3 trapped"), "{e}");
        assert!(
            loaded::<u32>(1000, &[7; 32]).is_none(),
            "a broken GPU's module is kept"
        );
        drop((a, b));
        GpuHealth::of(1000).check().unwrap();
    }
}
