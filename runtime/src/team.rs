//! Teams and `deploy`: binding a kernel to where it will run.

use crate::device::cuda::{self, CudaTeam};
use crate::device::{DeviceTeam, EmulatedTeam, Module, ModuleSource, Startup};
use crate::error::Error;
use hawk::Kernel;
use hawk_host::{HostConfig, HostReal, HostTeam};
use std::fmt;
use std::sync::Arc;

/// Which team to deploy on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TeamChoice {
    /// The best team available: the device when a CUDA GPU is usable, else the host.
    #[default]
    Best,
    /// The host team (CPU threads and SIMD lanes), set up as given.
    Host(HostConfig),
    /// The device team (a CUDA GPU); an error when none is usable.
    Device,
    /// The emulated device team: the device team's orchestration and the GPU entries'
    /// bodies run on the CPU with real launch geometry. For tests; slow.
    EmulatedDevice,
    /// The emulated device team injecting the faults planned (out of memory, a kernel trap,
    /// a lost context): for tests of the device team's error paths.
    EmulatedDeviceWith(crate::device::FaultPlan),
}

/// The team a kernel was deployed on.
#[derive(Clone)]
pub enum Team {
    /// CPU threads and SIMD lanes.
    Host(HostTeam),
    /// A device: a CUDA GPU or the emulated device.
    Device(DeviceTeam),
}

impl Team {
    /// `"host"` or `"device"`, as the seed prints it (`running on host`).
    pub fn name(&self) -> &'static str {
        match self {
            Team::Host(_) => "host",
            Team::Device(_) => "device",
        }
    }
    /// How the team started: the device's module source and load time; `Host` and 0 on
    /// the host team.
    pub fn startup(&self) -> Startup {
        match self {
            Team::Host(_) => Startup::none(ModuleSource::Host),
            Team::Device(d) => d.startup().clone(),
        }
    }
}

impl fmt::Debug for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Team::Host(h) => f
                .debug_struct("Host")
                .field("threads", &h.threads())
                .field("isa", &h.isa())
                .finish(),
            Team::Device(d) => f.debug_tuple("Device").field(d).finish(),
        }
    }
}

/// A kernel bound to a team, ready for [`crate::until_done`].
#[derive(Clone, Debug)]
pub struct Deployed<K: Kernel> {
    pub(crate) kernel: K,
    pub(crate) team: Team,
}

impl<K: Kernel> Deployed<K> {
    /// The team this kernel runs on.
    pub fn team(&self) -> &Team {
        &self.team
    }
    /// The kernel.
    pub fn kernel(&self) -> K {
        self.kernel
    }
}

/// Why the device team cannot be used here (no driver, no GPU), or `None` when it can.
/// Never panics: the driver library is looked for before it is touched.
pub fn device_unavailable_reason() -> Option<String> {
    cuda::unavailable_reason()
}

/// Deploys `kernel` on the best team available (see [`TeamChoice::Best`]), without a PTX
/// module (so on the host; `eagle::deploy` passes the embedded PTX).
///
/// ```
/// let deployed = eagle_runtime::deploy(hawk::builtin::Oscillator).unwrap();
/// assert_eq!(deployed.team().name(), "host");
/// ```
pub fn deploy<K: Kernel>(kernel: K) -> Result<Deployed<K>, Error>
where
    K::Real: HostReal,
{
    deploy_on(kernel, TeamChoice::Best)
}

/// Deploys `kernel` on the team chosen, without a device module (see
/// [`deploy_on_with_module`]).
pub fn deploy_on<K: Kernel>(kernel: K, choice: TeamChoice) -> Result<Deployed<K>, Error>
where
    K::Real: HostReal,
{
    deploy_on_with_module(kernel, choice, None)
}

/// Deploys `kernel` on the team chosen; `module` holds the kernel's GPU entries (the
/// runtime knows no kernel, so its caller brings the PTX and, optionally, a cubin). `Best`
/// takes a CUDA GPU when a driver, a GPU and a module are there, else the host team. The
/// device team loads the cubin when its architecture is the GPU's, else a cached image or
/// a JIT of the PTX (see [`Module`], [`crate::BuildCache`]).
pub fn deploy_on_with_module<K: Kernel>(
    kernel: K,
    choice: TeamChoice,
    module: Option<Module<'_>>,
) -> Result<Deployed<K>, Error>
where
    K::Real: HostReal,
{
    let team = match choice {
        TeamChoice::Best => match &module {
            Some(m) if cuda::unavailable_reason().is_none() => match CudaTeam::new(m) {
                Ok(t) => Team::Device(DeviceTeam::Cuda(Arc::new(t))),
                Err(_) => Team::Host(HostTeam::new(&HostConfig::default())?),
            },
            _ => Team::Host(HostTeam::new(&HostConfig::default())?),
        },
        TeamChoice::Host(cfg) => Team::Host(HostTeam::new(&cfg)?),
        TeamChoice::Device => {
            if let Some(r) = cuda::unavailable_reason() {
                return Err(Error::DeviceUnavailable(r));
            }
            let m = module.as_ref().ok_or_else(|| {
                Error::DeviceUnavailable(
                    "no PTX module was given (this build skipped the PTX build, or the \
                     runtime was called without one: use eagle::deploy_on)"
                        .into(),
                )
            })?;
            Team::Device(DeviceTeam::Cuda(Arc::new(CudaTeam::new(m)?)))
        }
        TeamChoice::EmulatedDevice => Team::Device(DeviceTeam::Emulated(EmulatedTeam::new(
            Default::default(),
            module.as_ref(),
        )?)),
        TeamChoice::EmulatedDeviceWith(p) => {
            Team::Device(DeviceTeam::Emulated(EmulatedTeam::new(p, module.as_ref())?))
        }
    };
    Ok(Deployed { kernel, team })
}
