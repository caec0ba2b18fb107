//! # eagle-shard: one ensemble over many devices and ranks
//!
//! A layer on top of the runtime's public API (`deploy`, `until_done`, `Runner`,
//! `RunReport`), kept in its own crate so that it cannot reach the runtime's
//! internals.
//!
//! - [`Fleet`]: a kernel deployed on every device of a node ([`Devices`]: every CUDA GPU,
//!   a list, `n` emulated devices, the host team). `until_done(&fleet, ..)` checks the
//!   caller's planes exactly as one process would, cuts them into contiguous shards (sized
//!   by the parts' weights, equal by default) and makes one [`eagle_runtime::Runner`] per
//!   device; [`FleetRunner::run`] runs them on a thread each and merges the reports into a
//!   [`Merged`] (the merged [`eagle_runtime::RunReport`], each part's, the imbalance).
//!
//! ## Why split results equal one device's, bit for bit
//!
//! Kernels are per-sample pure: a sample's steps read only its own planes and the params.
//! Every team freezes a sample at the exact step that terminates it (or fails it), and a
//! run's step count is capped by `max_steps` over all launches, whatever k each launch
//! takes. So each sample takes exactly `min(its lifetime, max_steps)` steps whichever
//! shard, device, launch sequence (`Steps::Auto` may pick another k in a shard whose
//! samples finish at other times), compaction or lane group it lands in, and its bits are
//! the same. What this needs: shards are contiguous sub-slices of the caller's planes (so
//! results land in the caller's order), params are the same everywhere, and the run is not
//! stopped early (a cancel or `time_limit` stops each part at its own launch boundary;
//! `resume` still ends with the same bits). The host team, the emulated device and the GPU
//! run the same step bodies, so a fleet mixing them gives the same bits too.
//!
//! What differs from one process is bookkeeping: each part launches on its own, so the
//! merged `launches`, `steps` and `launches_by_k` are the longest part's (equal to one
//! process's when every part takes the same k sequence: see [`merge_parallel`]), and
//! compactions are counted per part.

mod fleet;
#[cfg(feature = "mpi")]
pub mod mpi;
mod ranks;
mod report;
mod split;
#[cfg(feature = "mpi")]
mod wire;

pub use fleet::{Devices, Fleet, FleetRunner};
pub use ranks::{Balance, MpiError, MpiJob, MpiRun, share, under_mpirun};
pub use report::{Merged, Part, merge_parallel, merge_sequence};
pub use split::ranges;
