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
pub use hawk;
pub use hawk_host;

pub mod card;

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

pub mod figure;

/// The built-in kernels compiled to PTX (and, with `ptxas`, to a cubin) by `build.rs`.
pub mod ptx {
    use eagle_runtime::{BuildCache, Module};

    /// The PTX module of `kernels-gpu` (all built-in kernels), or `None` when the build
    /// skipped it (`EAGLE_SKIP_PTX=1`).
    pub const PTX: Option<&str> = if cfg!(eagle_no_ptx) {
        None
    } else {
        Some(include_str!(concat!(env!("OUT_DIR"), "/hawk.ptx")))
    };
    /// The GPU architecture the PTX targets (`sm_90` unless `EAGLE_PTX_ARCH` said otherwise).
    pub const ARCH: &str = env!("EAGLE_PTX_ARCH");
    /// The PTX assembled by `ptxas -arch=ARCH -O3` at build time, or `None` when the build
    /// found no `ptxas`, it failed (a build warning says why) or the PTX build was skipped.
    pub const CUBIN: Option<&[u8]> = if cfg!(eagle_cubin) {
        Some(include_bytes!(concat!(env!("OUT_DIR"), "/hawk.cubin")))
    } else {
        None
    };
    /// [`PTX`], [`CUBIN`] and [`ARCH`] as the runtime takes them, cached as the environment
    /// says ([`BuildCache::FromEnv`]); `None` without PTX.
    pub const MODULE: Option<Module<'static>> = match PTX {
        Some(ptx) => Some(Module {
            ptx,
            cubin: CUBIN,
            arch: ARCH,
            cache: BuildCache::FromEnv,
        }),
        None => None,
    };
}
