//! Teams and `deploy`: binding a kernel to where it will run.

use crate::error::Error;
use hawk::Kernel;
use hawk_host::{HostConfig, HostReal, HostTeam};
use std::fmt;

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
}

/// The team a kernel was deployed on.
#[derive(Clone)]
pub enum Team {
    /// CPU threads and SIMD lanes.
    Host(HostTeam),
}

impl Team {
    /// `"host"` or `"device"`, as the seed prints it (`running on host`).
    pub fn name(&self) -> &'static str {
        match self {
            Team::Host(_) => "host",
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

/// Why the device team cannot be used here, if it cannot.
pub fn device_unavailable_reason() -> String {
    "this build of eagle has no device team yet (CUDA support is not compiled in)".to_owned()
}

/// Deploys `kernel` on the best team available (see [`TeamChoice::Best`]).
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

/// Deploys `kernel` on the team chosen.
pub fn deploy_on<K: Kernel>(kernel: K, choice: TeamChoice) -> Result<Deployed<K>, Error>
where
    K::Real: HostReal,
{
    let team = match choice {
        TeamChoice::Best => Team::Host(HostTeam::new(&HostConfig::default())?),
        TeamChoice::Host(cfg) => Team::Host(HostTeam::new(&cfg)?),
        TeamChoice::Device => return Err(Error::DeviceUnavailable(device_unavailable_reason())),
    };
    Ok(Deployed { kernel, team })
}
