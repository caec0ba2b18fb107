//! Teams and `deploy`: binding a kernel to where it will run.

use crate::device::cuda::{self, CudaTeam};
use crate::device::{
    DeviceTeam, EmulatedTeam, FaultPlan, Module, ModuleSource, Startup, check_entries,
};
use crate::error::Error;
use crate::report::TeamKind;
use hawk::Kernel;
use hawk_host::{HostConfig, HostReal, HostTeam};
use std::fmt;
use std::sync::Arc;

/// Where to deploy a kernel: one team. (An `eagle_shard::Devices` is the other kind of
/// [`Placement`]: several teams at once.)
///
/// ```
/// use eagle_runtime::{HostConfig, Target, TeamKind, deploy};
/// use hawk::builtin::Oscillator;
/// // Two threads of the host team, lane width chosen by measurement (the default).
/// let host = Target::Host(HostConfig { threads: Some(2), ..Default::default() });
/// let deployed = deploy(Oscillator, host, None).unwrap();
/// assert_eq!(deployed.team().kind(), TeamKind::Host);
/// // The device team needs a GPU and a module with the kernel's entries: without them
/// // it is a clear error, never a silent fallback (`Best` falls back, with a note).
/// assert!(deploy(Oscillator, Target::Device(0), None).is_err());
/// let best = deploy(Oscillator, Target::Best, None).unwrap();
/// println!("{:?}", best.startup().notes);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// The best team available: the device when a CUDA GPU is usable and the module holds
    /// the kernel, else the host team (with the reason in [`Deployed::startup`]'s notes).
    #[default]
    Best,
    /// The host team (CPU threads and SIMD lanes), set up as given.
    Host(HostConfig),
    /// The device team on CUDA GPU `ordinal` (0-based); an error when there is no such GPU
    /// or no usable driver.
    Device(usize),
    /// The emulated device team: the device team's orchestration and the GPU entries'
    /// bodies run on the CPU with real launch geometry. For tests; slow.
    Emulated,
    /// The emulated device injecting the faults planned: a test hook, made by
    /// `eagle::testing::emulated_with_faults`.
    #[doc(hidden)]
    EmulatedFaults(crate::device::FaultPlan),
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
    /// The kind of team: prints as `host` or `device` (`running on host`).
    pub fn kind(&self) -> TeamKind {
        match self {
            Team::Host(_) => TeamKind::Host,
            Team::Device(_) => TeamKind::Device,
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

/// A kernel bound to one team, ready for [`crate::until_done`].
#[derive(Clone, Debug)]
pub struct Deployed<K: Kernel> {
    pub(crate) kernel: K,
    pub(crate) team: Team,
    /// Why deploy chose another team than asked for (`Best` on the host with a GPU there).
    pub(crate) notes: Vec<String>,
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
    /// How the team started ([`Team::startup`]), with deploy's own notes first: why
    /// [`Target::Best`] fell back to the host team although a GPU is there (the module
    /// lacks the kernel, or failed to load). The first run's report carries these notes.
    pub fn startup(&self) -> Startup {
        let mut s = self.team.startup();
        s.notes.splice(0..0, self.notes.iter().cloned());
        s
    }
}

/// Why the device team cannot be used here (no driver, no GPU), or `None` when it can.
/// Never panics: the driver library is looked for before it is touched.
pub fn device_unavailable_reason() -> Option<String> {
    cuda::unavailable_reason()
}

/// CUDA GPUs usable here (0 without a driver or a GPU); [`Target::Device`] takes
/// `0..device_count()`. Never panics.
pub fn device_count() -> usize {
    cuda::gpu_count()
}

/// [`deploy`] on one team.
fn deploy_team<K: Kernel>(
    kernel: K,
    target: Target,
    module: Option<Module<'_>>,
) -> Result<Deployed<K>, Error>
where
    K::Real: HostReal,
{
    let host = |cfg: &HostConfig| -> Result<Team, Error> {
        let dir = crate::device::cache::resolve_dir(crate::BuildCache::FromEnv);
        Ok(Team::Host(HostTeam::new(cfg)?.with_tuning_dir(dir)))
    };
    let mut notes = Vec::new();
    let team = match target {
        Target::Best => {
            match best_device::<K>(cuda::unavailable_reason(), module.as_ref(), |m| {
                Ok(Team::Device(DeviceTeam::Cuda(Arc::new(CudaTeam::new(m)?))))
            }) {
                Ok(t) => t,
                Err(why) => {
                    if let Some(why) = why {
                        notes.push(format!("running on the host team: {why}"));
                    }
                    host(&HostConfig::default())?
                }
            }
        }
        Target::Host(cfg) => host(&cfg)?,
        Target::Device(ordinal) => {
            if let Some(r) = cuda::unavailable_reason() {
                return Err(Error::DeviceUnavailable(r));
            }
            let m = device_module::<K>(module.as_ref())?;
            Team::Device(DeviceTeam::Cuda(Arc::new(CudaTeam::new_on(ordinal, m)?)))
        }
        Target::Emulated => emulated::<K>(Default::default(), module.as_ref())?,
        Target::EmulatedFaults(p) => emulated::<K>(p, module.as_ref())?,
    };
    Ok(Deployed {
        kernel,
        team,
        notes,
    })
}

/// Where a kernel can be deployed: a [`Target`] (one team, a [`Deployed`]) or, in
/// `eagle_shard`, `Devices` (several teams at once, a `Fleet`). What `eagle::deploy` and
/// [`Module::deploy`] take.
pub trait Placement {
    /// What deploying `K` here gives.
    type Deployed<K: Kernel>;
    /// Deploys `kernel` here with `module` for the device teams (`None`: no GPU code).
    fn deploy<K: Kernel>(
        self,
        kernel: K,
        module: Option<Module<'_>>,
    ) -> Result<Self::Deployed<K>, Error>
    where
        K::Real: HostReal;
}

impl Placement for Target {
    type Deployed<K: Kernel> = Deployed<K>;
    fn deploy<K: Kernel>(self, kernel: K, module: Option<Module<'_>>) -> Result<Deployed<K>, Error>
    where
        K::Real: HostReal,
    {
        deploy_team(kernel, self, module)
    }
}

/// Deploys `kernel` at `target` (a [`Target`], or `eagle_shard::Devices` for one team per
/// device, giving a `Fleet`). The `eagle` crate's `deploy` passes its embedded module,
/// [`Module::deploy`] a user's. `module` holds the kernel's GPU entries (the
/// runtime knows no kernel, so its caller brings the PTX and, optionally, a cubin). `Best`
/// takes a CUDA GPU when a driver, a GPU and a module are there, else the host team. The
/// device team loads the cubin when its architecture is the GPU's, else a cached image or
/// a JIT of the PTX (see [`Module`], [`crate::BuildCache`]).
///
/// Every device team (CUDA and the emulated device alike) first checks that `module` holds
/// every entry it would launch for `K`: its step entries and the helper kernels. A module
/// without them is [`Error::MissingEntries`] (no module: [`Error::DeviceUnavailable`]);
/// `Best` then runs on the host team and [`Deployed::startup`]'s notes say why.
pub fn deploy<K: Kernel, P: Placement>(
    kernel: K,
    target: P,
    module: Option<Module<'_>>,
) -> Result<P::Deployed<K>, Error>
where
    K::Real: HostReal,
{
    target.deploy(kernel, module)
}

impl<'m> Module<'m> {
    /// Deploys `kernel` at `target` with this module for the device teams: the way to run
    /// kernels of your own crate (`eagle::include_module!().deploy(MyKernel, Target::Best)`).
    /// Deploy checks that the module holds every entry the kernel needs.
    pub fn deploy<K: Kernel, P: Placement>(
        self,
        kernel: K,
        target: P,
    ) -> Result<P::Deployed<K>, Error>
    where
        K::Real: HostReal,
    {
        target.deploy(kernel, Some(self))
    }
}

/// The module a device team of `K` loads: refused when there is none or it lacks one of
/// `K`'s entries (the same check for CUDA and the emulated device).
fn device_module<'m, K: Kernel>(module: Option<&'m Module<'m>>) -> Result<&'m Module<'m>, Error> {
    let m = module.ok_or_else(|| {
        Error::DeviceUnavailable(format!(
            "no GPU module was given for kernel `{}` (this build skipped the PTX build, or \
             the runtime was called without one: deploy your own kernels with \
             eagle::include_module!().deploy(kernel, target); eagle::deploy brings the \
             built-in kernels' module)",
            K::NAME
        ))
    })?;
    check_entries::<K>(m)?;
    Ok(m)
}

fn emulated<K: Kernel>(faults: FaultPlan, module: Option<&Module<'_>>) -> Result<Team, Error> {
    let m = device_module::<K>(module)?;
    Ok(Team::Device(DeviceTeam::Emulated(EmulatedTeam::new(
        faults, m,
    )?)))
}

/// The device team for `Best` (`load` makes it from a checked module): `Err(Some(why))`
/// when a GPU is there (`gpu_unavailable` is `None`) but cannot run `K` (no module, entries
/// missing, the module failed to load), `Err(None)` when there is no usable GPU at all (the
/// host team is then the expected choice, not worth a note).
fn best_device<K: Kernel>(
    gpu_unavailable: Option<String>,
    module: Option<&Module<'_>>,
    load: impl FnOnce(&Module<'_>) -> Result<Team, Error>,
) -> Result<Team, Option<String>> {
    if gpu_unavailable.is_some() {
        return Err(None);
    }
    let m = device_module::<K>(module).map_err(|e| Some(e.to_string()))?;
    load(m).map_err(|e| Some(format!("the GPU could not load module `{}`: {e}", m.name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::entries;
    use hawk::builtin::Oscillator;

    fn host() -> Result<Team, Error> {
        Ok(Team::Host(HostTeam::new(&HostConfig::default())?))
    }

    #[test]
    fn best_explains_each_reason_a_present_gpu_was_not_used() {
        let empty = Module::ptx("// no entries", "sm_90").named("user_kernels");
        let why = |r: Result<Team, Option<String>>| r.err().flatten().unwrap_or_default();
        // No GPU: the host, without a note.
        let r = best_device::<Oscillator>(Some("no driver".into()), Some(&empty), |_| host());
        assert!(matches!(r, Err(None)));
        // A GPU, no module.
        let w = why(best_device::<Oscillator>(None, None, |_| host()));
        assert!(w.contains("no GPU module"), "{w}");
        // A GPU, a module without the kernel: the entries and the module are named.
        let w = why(best_device::<Oscillator>(None, Some(&empty), |_| host()));
        assert!(
            w.contains("hawk_oscillator_indexed") && w.contains("`user_kernels`"),
            "{w}"
        );
        // A GPU that fails to load the module.
        let ptx: String = entries::<Oscillator>()
            .map(|e| {
                let params: Vec<String> = e
                    .params
                    .iter()
                    .map(|p| format!("\t.param .u{} {}", p.1 * 8, p.0))
                    .collect();
                format!(".visible .entry {}(\n{}\n)\n", e.symbol, params.join(",\n"))
            })
            .chain([format!(
                ".visible .global .align 8 .u64 hawk_id_oscillator = {};\n",
                Oscillator::IDENTITY
            )])
            .collect();
        let full = Module::ptx(&ptx, "sm_90").named("full");
        let w = why(best_device::<Oscillator>(None, Some(&full), |_| {
            Err(Error::device("bad image"))
        }));
        assert!(
            w.contains("could not load module `full`") && w.contains("bad image"),
            "{w}"
        );
        // A module whose entry declares other parameters (built by another version): the
        // step entry without its `k`; the error lists the sizes the module declares.
        let old = ptx.replacen(",\n\t.param .u32 k", "", 1);
        let step = entries::<Oscillator>()
            .find(|e| e.symbol == "hawk_oscillator")
            .expect("the step entry");
        let declared: Vec<String> = step
            .params
            .iter()
            .filter(|p| p.0 != "k")
            .map(|p| p.1.to_string())
            .collect();
        let declared = format!("({})", declared.join(", "));
        let w = why(best_device::<Oscillator>(
            None,
            Some(&Module::ptx(&old, "sm_90").named("old")),
            |_| host(),
        ));
        assert!(
            w.contains("entry `hawk_oscillator` of GPU module `old`")
                && w.contains(&format!("takes parameters of {declared} bytes"))
                && w.contains("rebuild the module"),
            "{w}"
        );
        // A module whose kernel of that name is another kernel (another identity).
        let other = ptx.replace(
            &format!("= {};", Oscillator::IDENTITY),
            &format!("= {};", Oscillator::IDENTITY ^ 1),
        );
        let w = why(best_device::<Oscillator>(
            None,
            Some(&Module::ptx(&other, "sm_90").named("other")),
            |_| host(),
        ));
        assert!(
            w.contains("GPU module `other` holds another kernel named `oscillator`"),
            "{w}"
        );
        // A GPU that loads it: the device.
        let r = best_device::<Oscillator>(None, Some(&full), |_| host());
        assert!(r.is_ok());
    }
}
