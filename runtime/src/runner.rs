//! `until_done` and its runner: the launch loop, compaction, reorder and the report.

use crate::alloc::filled;
use crate::control::{CancelHandle, Control};
use crate::device_run::DeviceSession;
use crate::error::Error;
use crate::host_run::HostRun;
use crate::options::{Options, Plan, Reorder};
use crate::planes::{Bound, bind};
use crate::report::{RunReport, Status, Stop};
use crate::run_loop::{LoopArgs, run_loop};
use crate::team::{Deployed, Team};
use crate::trajectory::{SavePlan, Trajectory};
use hawk::{Kernel, PlaneSource, Role};
use hawk_host::HostReal;

/// Runs a deployed kernel until every sample is terminated (or failed) or `max_steps` is
/// reached, or a cancel or the time limit stops it (see [`Runner::resume`]).
///
/// Holds the caller's planes for its lifetime. On the host team `run()` updates the mutable
/// planes in place (once, at the end) and `to_host()` is a no-op; on the device `run()`
/// leaves the results on the device and `to_host()` is the one device-to-host copy (the
/// "transfer" to time).
///
/// Results always come home: the caller's planes are borrowed until the runner is dropped,
/// and dropping a runner whose last device run was not brought home with `to_host()` brings
/// it home then (a failed copy there panics, naming `to_host()` as the way to handle the
/// error). Reading results through the runner before `to_host()` ([`Runner::plane`],
/// [`Runner::trajectory`]) is [`Error::NotHome`]. So code tested on the host team gives the
/// same planes on a device with no change.
pub struct Runner<'a, K: Kernel> {
    deployed: Deployed<K>,
    options: Options,
    plan: Plan,
    planes: Bound<'a, K::Real>,
    /// Status bytes (`hawk::ACTIVE`, `FINISHED`, `FAILED`) in the caller's order.
    bytes: Vec<u8>,
    terminated: Vec<bool>,
    status: Vec<Status>,
    /// Steps the current run has taken (over `run()` and its `resume()`s).
    steps_done: u64,
    /// The last run stopped early (cancelled, time limit) and can be resumed.
    resumable: bool,
    /// The caller's planes (and the trajectory) hold the last run's results: `false` after a
    /// device run until `to_host` (or the runner's drop) brings them home.
    home: bool,
    cancel: CancelHandle,
    device: Option<Box<dyn DeviceSession<K>>>,
    /// The team's start-up was reported (by this runner's first successful run).
    startup_reported: bool,
    /// What a run saves (`Options::save`), checked and sized by `until_done`.
    save: Option<SavePlan>,
    /// The saved points, kept between runs (allocated by the first run that saves).
    trajectory: Option<Trajectory<K::Real>>,
}

impl<K: Kernel> Drop for Runner<'_, K> {
    /// Brings a device run's results home when `to_host` was not called after it.
    fn drop(&mut self) {
        if self.home {
            return;
        }
        if let Some(d) = &mut self.device
            && let Err(e) = d.copy_home(&mut self.planes, self.trajectory.as_mut())
            && !std::thread::panicking()
        {
            panic!(
                "eagle: the runner was dropped with its last run's results on the device, and \
                 bringing them home failed: {e}. Call Runner::to_host() before the runner \
                 goes out of scope to handle this error."
            );
        }
    }
}

/// A run's save points: the plan and the buffer the team writes into.
pub(crate) struct Saving<'r, R> {
    /// What to save.
    pub plan: &'r SavePlan,
    /// Where (host memory; a device team keeps its own copy until `to_host`).
    pub traj: &'r mut Trajectory<R>,
}

/// Something [`until_done`] can make a runner for: a [`Deployed`] kernel (one team) or, in
/// `eagle_shard`, a `Fleet` (several).
pub trait Deployment {
    /// The kernel deployed.
    type Kernel: Kernel;
    /// The runner [`until_done`] makes over planes borrowed for `'a`.
    type Runner<'a>;
    /// A runner over `planes` with `options`; every check happens here, before anything
    /// runs.
    fn runner<'a>(
        &self,
        options: Options,
        planes: impl PlaneSource<'a, <Self::Kernel as Kernel>::Real>,
    ) -> Result<Self::Runner<'a>, Error>;
}

/// A runner over the caller's planes: `until_done(&deployed, 10_000, planes)` (a step cap
/// with default [`Options`]) or `until_done(&deployed, Options::new(10_000)..., planes)`.
/// The same call for one team ([`Deployed`], giving a [`Runner`]) and for a fleet of them
/// (`eagle_shard::Fleet`). Every check happens here, before anything runs.
///
/// ```
/// use hawk::builtin::{Oscillator, OscillatorPlanes};
/// use eagle_runtime::{Target, deploy, until_done};
/// let n = 1000;
/// let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
/// let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
/// let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
/// let deployed = deploy(Oscillator, Target::Host(Default::default()), None).unwrap();
/// let mut runner = until_done(&deployed, 10_000, planes).unwrap();
/// let report = runner.run().unwrap();
/// assert!(report.done());
/// assert_eq!(report.steps, 1024);
/// ```
pub fn until_done<'a, D: Deployment>(
    deployed: &D,
    options: impl Into<Options>,
    planes: impl PlaneSource<'a, <D::Kernel as Kernel>::Real>,
) -> Result<D::Runner<'a>, Error> {
    deployed.runner(options.into(), planes)
}

impl<K: Kernel> Deployment for Deployed<K>
where
    K::Real: HostReal,
{
    type Kernel = K;
    type Runner<'a> = Runner<'a, K>;
    fn runner<'a>(
        &self,
        options: Options,
        planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<Runner<'a, K>, Error> {
        make_runner(self, options, planes)
    }
}

fn make_runner<'a, K: Kernel>(
    deployed: &Deployed<K>,
    options: Options,
    planes: impl PlaneSource<'a, K::Real>,
) -> Result<Runner<'a, K>, Error>
where
    K::Real: HostReal,
{
    options.check()?;
    let planes = bind::<K>(planes)?;
    let reorder_key = match &options.reorder {
        Reorder::Off => None,
        Reorder::ByPlane(name) => Some(
            crate::planes::per_sample_components::<K>()
                .position(|(p, _)| p == *name)
                .ok_or_else(|| Error::ReorderKey {
                    kernel: K::NAME,
                    plane: name.clone(),
                })?,
        ),
    };
    let plan = Plan {
        max_steps: options.max_steps,
        steps: options.steps.unwrap_or(K::STEPS),
        compaction: options.compaction,
        reorder_key,
        arm: options.arm,
        device_compaction: options.device_compaction,
    };
    let n = planes.n;
    // Sized here, before anything runs: a refused trajectory leaves the planes untouched.
    let save = match &options.save {
        None => None,
        Some(s) => Some(SavePlan::new::<K>(
            s,
            options.max_steps,
            n,
            options.trajectory_limit,
        )?),
    };
    Ok(Runner {
        deployed: deployed.clone(),
        options,
        plan,
        planes,
        bytes: filled(hawk::ACTIVE, n, "the samples' status bytes")?,
        terminated: filled(false, n, "the samples' terminated flags")?,
        status: filled(Status::Active, n, "the samples' statuses")?,
        steps_done: 0,
        resumable: false,
        home: true,
        cancel: CancelHandle::default(),
        device: None,
        startup_reported: false,
        save,
        trajectory: None,
    })
}

impl<'a, K: Kernel> Runner<'a, K>
where
    K::Real: HostReal,
{
    /// Samples in the ensemble.
    pub fn len(&self) -> usize {
        self.planes.n
    }

    /// Always `false`: an empty ensemble is refused by `until_done`.
    pub fn is_empty(&self) -> bool {
        self.planes.n == 0
    }

    /// The settings this runner uses.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Per-sample terminated flags after the last run, in the caller's order (`true` for
    /// finished and failed samples).
    pub fn terminated(&self) -> &[bool] {
        &self.terminated
    }

    /// Per-sample status after the last run, in the caller's order.
    pub fn status(&self) -> &[Status] {
        &self.status
    }

    /// The points saved by the last run (`Options::save`), in the caller's sample order;
    /// `None` before the first run or without saving. On a device team they come home with
    /// [`Runner::to_host`], as the planes do: before it, [`Error::NotHome`].
    pub fn trajectory(&self) -> Result<Option<&Trajectory<K::Real>>, Error> {
        if !self.home && self.trajectory.is_some() {
            return Err(Error::NotHome {
                what: "trajectory".into(),
            });
        }
        Ok(self.trajectory.as_ref())
    }

    /// A handle that stops this runner's current or next run at a launch boundary, usable
    /// from any thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// A mutable plane for writing between runs (same shapes, new contents). On the device
    /// it first brings the state home, and the next `run()` uploads the planes again.
    pub fn plane_mut(&mut self, name: &str) -> Result<&mut [K::Real], Error> {
        let j = crate::planes::component_names::<K>(Role::Mut)
            .position(|p| p == name)
            .ok_or_else(|| Error::NoSuchPlane {
                plane: name.to_owned(),
            })?;
        if let Some(d) = &mut self.device {
            d.release_to_host(&mut self.planes, self.trajectory.as_mut())?;
        }
        self.home = true;
        Ok(&mut *self.planes.muts[j])
    }

    /// A mutable plane's current contents; after a device run, [`Error::NotHome`] until
    /// [`Runner::to_host`].
    pub fn plane(&self, name: &str) -> Result<&[K::Real], Error> {
        let j = crate::planes::component_names::<K>(Role::Mut)
            .position(|p| p == name)
            .ok_or_else(|| Error::NoSuchPlane {
                plane: name.to_owned(),
            })?;
        if !self.home {
            return Err(Error::NotHome {
                what: format!("plane `{name}`"),
            });
        }
        Ok(&*self.planes.muts[j])
    }

    /// Brings the planes home. The host team's planes are already home, so this returns at
    /// once; on the device it is the one device-to-host copy.
    pub fn to_host(&mut self) -> Result<(), Error> {
        if let Some(d) = &mut self.device {
            d.copy_home(&mut self.planes, self.trajectory.as_mut())?;
        }
        self.home = true;
        Ok(())
    }

    /// Runs from the planes' current contents (every sample starts not terminated) until all
    /// samples terminate or fail, `max_steps` steps, a cancel or the time limit. Results
    /// land in the caller's order: in the caller's planes on the host team, on the device
    /// until `to_host()` on the device. A second run continues from the first run's results
    /// (on either team) with fresh flags and step count.
    ///
    /// On a device error the runner drops its device state (the caller's planes are as they
    /// were) and the next run starts again from the caller's planes.
    pub fn run(&mut self) -> Result<RunReport, Error> {
        self.bytes.fill(hawk::ACTIVE);
        self.steps_done = 0;
        if let Some(plan) = &self.save {
            match &mut self.trajectory {
                Some(t) if t.fits(plan) => t.reset(),
                t => {
                    let mut fresh = Trajectory::new(plan)?;
                    if let Team::Host(team) = &self.deployed.team {
                        team.install(|| fresh.first_touch());
                    }
                    *t = Some(fresh);
                }
            }
        }
        self.go()
    }

    /// Continues a run that stopped early (cancelled or out of time) from where it stopped:
    /// same state, flags and step count, so the final results equal an uninterrupted run's
    /// bit for bit. The report covers this call (its `steps` are this call's).
    ///
    /// ```
    /// use eagle_runtime::{Options, Stop, Target};
    /// use hawk::builtin::{Oscillator, OscillatorPlanes};
    /// let n = 256;
    /// let omega = vec![2.0; n];
    /// let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
    /// let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
    /// let host = Target::Host(Default::default());
    /// let deployed = eagle_runtime::deploy(Oscillator, host, None).unwrap();
    /// let mut runner = eagle_runtime::until_done(&deployed, Options::new(10_000), planes).unwrap();
    /// // Any thread may cancel; the run stops at its next launch boundary.
    /// let cancel = runner.cancel_handle();
    /// cancel.cancel();
    /// let first = runner.run().unwrap();
    /// assert_eq!(first.stop, Stop::Cancelled);
    /// assert_eq!(first.launches, 0); // cancelled before its first launch
    /// let rest = runner.resume().unwrap(); // goes on from where it stopped
    /// assert_eq!(rest.stop, Stop::Done);
    /// assert_eq!(rest.steps, 1024); // 1000 steps of 1e-3, in launches of 64
    /// assert!(runner.resume().is_err()); // nothing left to resume
    /// ```
    pub fn resume(&mut self) -> Result<RunReport, Error> {
        if !self.resumable {
            return Err(Error::NothingToResume);
        }
        self.go()
    }

    fn go(&mut self) -> Result<RunReport, Error> {
        let ctl = Control::new(
            &self.cancel,
            self.options.time_limit,
            self.options.progress,
            self.plan.max_steps,
        );
        ctl.progress(self.steps_done, self.planes.n, 0);
        let mut bytes = self.bytes.clone();
        let out = self.launch_loop(&mut bytes, &ctl);
        ctl.finish();
        let mut report = match out {
            Ok(r) => r,
            Err(e) => {
                self.device = None;
                self.resumable = false;
                self.home = true;
                return Err(e);
            }
        };
        self.home = self.device.is_none();
        self.bytes = bytes;
        self.steps_done += report.steps;
        self.resumable = matches!(report.stop, Stop::Cancelled | Stop::TimeLimit);
        let capped = report.stop == Stop::MaxSteps;
        for ((st, t), &b) in self
            .status
            .iter_mut()
            .zip(&mut self.terminated)
            .zip(&self.bytes)
        {
            *t = b != hawk::ACTIVE;
            *st = match b {
                hawk::ACTIVE if capped => Status::Capped,
                hawk::ACTIVE => Status::Active,
                hawk::FAILED => Status::Failed,
                _ => Status::Finished,
            };
        }
        let count = |s: Status| self.status.iter().filter(|&&x| x == s).count();
        report.finished = count(Status::Finished);
        report.failed = count(Status::Failed);
        report.capped = count(Status::Capped);
        if !self.startup_reported {
            let s = self.deployed.startup();
            report.startup = Some(s.source);
            report.startup_s = s.load_s;
            report.notes.splice(0..0, s.notes);
            self.startup_reported = true;
        }
        if let Team::Host(h) = self.deployed.team() {
            // Why the on-disk tuning cache was not used, if it was not (once per reason).
            report.notes.extend(h.take_notes());
        }
        Ok(report)
    }

    fn launch_loop(&mut self, bytes: &mut [u8], ctl: &Control) -> Result<RunReport, Error> {
        let save = match (&self.save, &mut self.trajectory) {
            (Some(plan), Some(traj)) => Some(Saving { plan, traj }),
            _ => None,
        };
        let args = LoopArgs {
            plan: &self.plan,
            planes: &mut self.planes,
            status: bytes,
            steps_before: self.steps_done,
            ctl,
        };
        match &self.deployed.team {
            Team::Host(team) => {
                let (run, report) = HostRun::begin::<K>(team, args.planes, args.status, save)?;
                run_loop::<K, _>(run, args, report)
            }
            Team::Device(dev) => {
                if self.device.is_none() {
                    self.device = Some(dev.open::<K>(args.planes)?);
                }
                let d = self.device.as_mut().expect("opened above");
                d.run(args, save)
            }
        }
    }
}
