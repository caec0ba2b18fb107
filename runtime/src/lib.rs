//! # eagle: the runtime
//!
//! `deploy` binds a hawk kernel to a team (the `eagle` crate's `deploy` brings its embedded
//! GPU module), `until_done` makes a runner over the caller's planes, `run` launches until every sample is terminated or `max_steps` is reached and
//! returns a [`RunReport`]. Data flows one way: kernel -> team -> runner -> report, and the
//! runtime knows no particular kernel.
//!
//! Invariants:
//! - Results come back in the caller's order, whatever compaction and reorder did.
//! - A refused run (any [`Error`]) leaves the caller's planes as they were; a finished run
//!   leaves them fully updated.
//! - A sample never changes after the step that set its `terminated` flag; a sample whose
//!   state becomes NaN or infinite (or that the kernel flags `failed`) keeps the state from
//!   before that step and is reported `Failed`; the others are unaffected.
//! - A run stops only at a launch boundary (done, `max_steps`, cancel, time limit) with
//!   every plane consistent; `Runner::resume` continues a cancelled or timed-out run with
//!   the same final bits as an uninterrupted one.

mod alloc;
mod bytes;
mod control;
mod device;
mod device_run;
mod error;
mod host_run;
#[cfg(feature = "npy")]
mod npy;
mod options;
mod planes;
mod report;
mod run_loop;
mod runner;
mod team;
mod trace;
mod trajectory;

pub use control::CancelHandle;
pub use device::{BuildCache, DeviceProps, FaultPlan, Module, ModuleSource, Startup, device_props};
pub use error::{DriverCode, Error};
pub use hawk_host::{HostConfig, Isa};
pub use options::{Arm, Compaction, DeviceCompaction, Options, Reorder, SaveAt, SaveWhen};
pub use planes::{PlaneSet, component_names, components, components_mut};
pub use report::{RunReport, Status, Stop, TeamKind};
pub use runner::{Deployment, Runner, until_done};
pub use team::{
    Deployed, Placement, Target, Team, deploy, device_count, device_unavailable_reason,
};
pub use trajectory::{PointStatus, Trajectory};
