//! # eagle: ensembles on GPUs and CPUs
//!
//! Millions of independent samples, each advanced by the same step kernel until it says it
//! is done. Kernels are written once in [`hawk`] (`no_std`, generic over the lane type),
//! compiled to PTX for NVIDIA GPUs (embedded here, see [`ptx`]) and for the host, where a
//! rayon "host team" runs them with SIMD lanes. The runtime ([`deploy`], [`until_done`],
//! [`Runner::run`]) launches several steps per launch, compacts finished samples away and
//! reports where the time went ([`RunReport`]).
//!
//! ```
//! use eagle::prelude::*;
//! use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
//!
//! let n = 10_000;
//! let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
//! let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
//! let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
//! let deployed = eagle::deploy(Oscillator, Target::Best)?;
//! let mut runner = eagle::until_done(&deployed, 10_000, planes)?;
//! let report = runner.run()?;
//! runner.to_host()?;
//! drop(runner);
//! assert_eq!(report.to_string(), "launches: 16, steps: 1024, launches_by_k: {64: 16}\ndone: true");
//! assert!(t.iter().all(|&t| t >= 1.0));
//! # Ok::<(), eagle::Error>(())
//! ```

pub use eagle_runtime::{
    Arm, BuildCache, CancelHandle, Compaction, Deployed, Deployment, DeviceCompaction, DeviceProps,
    DriverCode, Error, HostConfig, Isa, Module, ModuleSource, Options, Placement, PlaneSet,
    PointStatus, Reorder, RunReport, Runner, SaveAt, SaveWhen, Startup, Status, Stop, Target, Team,
    TeamKind, Trajectory, component_names, components, components_mut, device_count, device_props,
    device_unavailable_reason, until_done,
};
pub use hawk::Steps;
pub use hawk_host::HostReal;

/// The runtime's plumbing (plane sets for sharding, step policies): for eagle's own
/// crates, not a stable API.
#[doc(hidden)]
pub use eagle_runtime as runtime;
/// One ensemble over every device of a node, and (feature `mpi`) over MPI ranks:
/// [`eagle_shard`].
pub use eagle_shard as shard;
pub use hawk;
/// The host team's internals (lane shapes, tuning, peaks): for eagle's own programs and
/// benches, not a stable API.
#[doc(hidden)]
pub use hawk_host;

pub mod guide;
pub mod testing;

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// What a program using eagle names: `use eagle::prelude::*;` brings [`deploy`],
/// [`until_done`], the targets and options, the report, and hawk's kernel-writing prelude
/// (`#[kernel]`, `Kernel`, `Steps`, `Lane`, ...).
pub mod prelude {
    pub use crate::shard::Devices;
    pub use crate::{
        Error, HostConfig, Module, Options, RunReport, SaveAt, Target, deploy, until_done,
    };
    pub use hawk::prelude::*;
}

/// Deploys `kernel` at `target` with eagle's embedded GPU module ([`ptx::MODULE`], which
/// holds the built-in kernels of [`hawk::builtin`]): a [`Target`] gives one [`Deployed`]
/// team, a [`shard::Devices`] a [`shard::Fleet`] (one team per device). For kernels of your
/// own crate, deploy with your module: `eagle::include_module!().deploy(kernel, target)`.
///
/// [`Target::Best`] takes a CUDA GPU when a driver and a GPU are there and the module holds
/// the kernel (its cubin when the GPU's architecture is [`ptx::ARCH`], else the PTX through
/// the build cache), else the host team, with the reason in [`Deployed::startup`]'s notes.
/// [`Target::Device`] without a usable GPU is [`Error::DeviceUnavailable`].
///
/// ```
/// use eagle::prelude::*;
/// use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
///
/// let n = 1000;
/// let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
/// let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
/// let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
/// let fleet = eagle::deploy(Oscillator, Devices::Best)?;
/// let mut runner = eagle::until_done(&fleet, 10_000, planes)?;
/// let merged = runner.run()?;
/// runner.to_host()?;
/// assert!(merged.report.done());
/// assert_eq!(merged.parts.len(), fleet.len());
/// # Ok::<(), eagle::Error>(())
/// ```
pub fn deploy<K: hawk::Kernel, P: Placement>(kernel: K, target: P) -> Result<P::Deployed<K>, Error>
where
    K::Real: hawk_host::HostReal,
{
    eagle_runtime::deploy(kernel, target, ptx::MODULE)
}

/// The GPU module your `build.rs` made with `eagle_build::KernelBuilder`, embedded in your
/// program as a [`Module`]: its PTX, its cubin when a `ptxas` assembled one, its
/// architecture and name. `include_module!()` takes the module built without a name,
/// `include_module!("NAME")` the one built with `.name("NAME")`.
///
/// Deploy with it: `eagle::include_module!().deploy(kernel, target)` ([`Module::deploy`]).
/// Deploy checks that it holds every entry the kernel needs, on every device team alike.
#[macro_export]
macro_rules! include_module {
    () => {
        $crate::include_module!(@vars "EAGLE_MODULE_PTX", "EAGLE_MODULE_CUBIN",
            "EAGLE_MODULE_ARCH", "EAGLE_MODULE_NAME")
    };
    ($name:literal) => {
        $crate::include_module!(@vars
            concat!("EAGLE_MODULE_", $name, "_PTX"), concat!("EAGLE_MODULE_", $name, "_CUBIN"),
            concat!("EAGLE_MODULE_", $name, "_ARCH"), concat!("EAGLE_MODULE_", $name, "_NAME"))
    };
    (@vars $ptx:expr, $cubin:expr, $arch:expr, $name:expr) => {{
        const CUBIN: &[u8] = include_bytes!(env!($cubin));
        $crate::Module {
            ptx: include_str!(env!($ptx)),
            cubin: if CUBIN.is_empty() { None } else { Some(CUBIN) },
            arch: env!($arch),
            name: env!($name),
            cache: $crate::BuildCache::FromEnv,
        }
    }};
}

/// The built-in kernels compiled to PTX (and, with `ptxas`, to a cubin) by `build.rs`.
pub mod ptx {
    use eagle_runtime::Module;

    const BUILT: Module<'static> = crate::include_module!();

    /// The PTX module of `kernels-gpu` (all built-in kernels), or `None` when the build
    /// skipped it (`EAGLE_SKIP_PTX=1`).
    pub const PTX: Option<&str> = if BUILT.ptx.is_empty() {
        None
    } else {
        Some(BUILT.ptx)
    };
    /// The GPU architecture the PTX targets (`sm_90` unless `EAGLE_PTX_ARCH` said otherwise).
    pub const ARCH: &str = BUILT.arch;
    /// The PTX assembled by `ptxas -arch=ARCH -O3` at build time, or `None` when the build
    /// found no `ptxas` or the PTX build was skipped.
    pub const CUBIN: Option<&[u8]> = BUILT.cubin;
    /// `ptxas -v`'s report on [`PTX`] at build time (per entry: registers, stack frame,
    /// spill stores and loads), or `None` when there is no [`CUBIN`].
    pub const PTXAS_REPORT: Option<&str> = {
        const LOG: &str = include_str!(env!("EAGLE_PTXAS_REPORT"));
        if LOG.is_empty() { None } else { Some(LOG) }
    };
    /// [`PTX`], [`CUBIN`] and [`ARCH`] as the runtime takes them, cached as the environment
    /// says ([`eagle_runtime::BuildCache::FromEnv`]); `None` without PTX.
    pub const MODULE: Option<Module<'static>> = match PTX {
        Some(_) => Some(BUILT),
        None => None,
    };
}
