//! Issued bytes: what a team's passes really read and write, for the card's yardstick.
//! Counted from the kernel's plane counts and what each pass touches, never measured.

use hawk::{Kernel, Role};

/// Per-slot byte counts of one kernel's planes.
pub(crate) struct IssuedBytes {
    /// Input planes' bytes per slot.
    ins: u64,
    /// Mutable planes' bytes per slot.
    muts: u64,
}

impl IssuedBytes {
    pub(crate) fn of<K: Kernel>() -> Self {
        let b = std::mem::size_of::<K::Real>() as u64;
        IssuedBytes {
            ins: K::count(Role::In) as u64 * b,
            muts: K::count(Role::Mut) as u64 * b,
        }
    }

    /// A sample that runs: inputs read, state read and written, flag written.
    fn running(&self) -> u64 {
        self.ins + 2 * self.muts + 1
    }

    /// A host launch reads every slot's flag; loaded slots (lane groups not all finished)
    /// also move a running sample's bytes.
    pub(crate) fn host_launch(&self, slots: usize, loaded: usize) -> u64 {
        slots as u64 + loaded as u64 * self.running()
    }

    /// A host compaction (or reorder) pass reads every slot (planes, flag, id) and writes
    /// each one once (to the dense planes or home).
    pub(crate) fn compaction(&self, before: usize) -> u64 {
        2 * before as u64 * (self.ins + self.muts + 1 + 8)
    }

    /// A device launch over `slots` threads: each reads its flag (and its index when the
    /// layout is an index list); the `active` samples still running move their bytes; one
    /// counter is written.
    pub(crate) fn device_launch(&self, slots: u32, active: u32, indexed: bool) -> u64 {
        let per_thread = 1 + if indexed { 4 } else { 0 };
        u64::from(slots) * per_thread + u64::from(active) * self.running() + 4
    }

    /// A device compaction: two passes over the flags (and indices) of `slots` threads, the
    /// `kept` indices written, and for a gather the kept samples' planes copied.
    pub(crate) fn device_compaction(&self, slots: u32, kept: u32, gather: bool) -> u64 {
        let scan = 2 * u64::from(slots) * 5 + u64::from(kept) * 4;
        let copy = if gather {
            2 * u64::from(kept) * (self.ins + self.muts + 1)
        } else {
            0
        };
        scan + copy
    }
}
