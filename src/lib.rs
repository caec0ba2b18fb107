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
//! use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
//!
//! let n = 10_000;
//! let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
//! let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
//! let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
//! let deployed = eagle::deploy(Oscillator)?;
//! let mut runner = eagle::until_done(&deployed, 10_000, planes)?;
//! let report = runner.run()?;
//! runner.to_host()?;
//! drop(runner);
//! assert_eq!(report.to_string(), "launches: 16, steps: 1024, launches_by_k: {64: 16}\ndone: true");
//! assert!(t.iter().all(|&t| t >= 1.0));
//! # Ok::<(), eagle::Error>(())
//! ```

pub use eagle_runtime::*;
/// One ensemble over every device of a node, and (feature `mpi`) over MPI ranks:
/// [`eagle_shard`].
pub use eagle_shard as shard;
pub use hawk;
pub use hawk_host;

/// Deploys `kernel` on the best team: a CUDA GPU (with the embedded [`ptx::MODULE`]) when a
/// driver and a GPU are present, else the host team.
pub fn deploy<K: hawk::Kernel>(kernel: K) -> Result<Deployed<K>, Error>
where
    K::Real: hawk_host::HostReal,
{
    deploy_on(kernel, TeamChoice::Best)
}

/// Deploys `kernel` on the team chosen, with the embedded [`ptx::MODULE`] for the device
/// (its cubin when the GPU's architecture is [`ptx::ARCH`], else the PTX through the build
/// cache). `TeamChoice::Device` without a usable GPU is [`Error::DeviceUnavailable`].
pub fn deploy_on<K: hawk::Kernel>(kernel: K, choice: TeamChoice) -> Result<Deployed<K>, Error>
where
    K::Real: hawk_host::HostReal,
{
    deploy_on_with_module(kernel, choice, ptx::MODULE)
}

/// Deploys `kernel` on several devices at once (every GPU of the node by default, see
/// [`shard::Devices`]) with the embedded [`ptx::MODULE`]: one ensemble split in contiguous
/// shards, one runner per device, results in the caller's order, one merged report. Bit
/// for bit what one device gives (see [`shard`]).
///
/// ```
/// use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
/// use eagle::shard::Devices;
///
/// let n = 1000;
/// let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
/// let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
/// let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
/// let fleet = eagle::deploy_fleet(Oscillator, &Devices::Best)?;
/// let mut runner = fleet.until_done(10_000, planes)?;
/// let merged = runner.run()?;
/// runner.to_host()?;
/// assert!(merged.report.done());
/// assert_eq!(merged.parts.len(), fleet.len());
/// # Ok::<(), eagle::Error>(())
/// ```
pub fn deploy_fleet<K: hawk::Kernel>(
    kernel: K,
    devices: &shard::Devices,
) -> Result<shard::Fleet<K>, Error>
where
    K::Real: hawk_host::HostReal,
{
    shard::Fleet::deploy(kernel, devices, ptx::MODULE)
}

/// Deploys your `kernel` on the best team, with your `module` (from
/// [`include_module!`]) for the device: a CUDA GPU when one is usable and the module holds
/// the kernel's entries, else the host team (the start-up notes of
/// [`Deployed::startup`] then say why). See [`deploy_on_with_module`] to choose the team.
///
/// ```ignore
/// // In a crate whose build.rs ran eagle_build::KernelBuilder::new("../kernels").build():
/// let deployed = eagle::deploy_with(my_kernels::VanDerPol, eagle::include_module!())?;
/// ```
pub fn deploy_with<K: hawk::Kernel>(kernel: K, module: Module<'_>) -> Result<Deployed<K>, Error>
where
    K::Real: hawk_host::HostReal,
{
    deploy_on_with_module(kernel, TeamChoice::Best, Some(module))
}

/// The GPU module your `build.rs` made with `eagle_build::KernelBuilder`, embedded in your
/// program as a [`Module`]: its PTX, its cubin when a `ptxas` assembled one, its
/// architecture and name. `include_module!()` takes the module built without a name,
/// `include_module!("NAME")` the one built with `.name("NAME")`.
///
/// Give it to [`deploy_with`] or [`deploy_on_with_module`]. Deploy checks that it holds
/// every entry the kernel needs, on every device team alike.
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
    /// [`PTX`], [`CUBIN`] and [`ARCH`] as the runtime takes them, cached as the environment
    /// says ([`eagle_runtime::BuildCache::FromEnv`]); `None` without PTX.
    pub const MODULE: Option<Module<'static>> = match PTX {
        Some(_) => Some(BUILT),
        None => None,
    };
}
