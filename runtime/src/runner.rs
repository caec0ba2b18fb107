//! `until_done` and its runner: the launch loop, compaction, reorder and the report.

use crate::error::Error;
use crate::options::{AUTO_STEPS_HOST, Options, Reorder};
use crate::planes::{Bound, bind};
use crate::report::RunReport;
use crate::team::{Deployed, Team};
use hawk::{Kernel, PlaneSource, Role, Steps};
use hawk_host::{HostReal, WorkSet};

/// Runs a deployed kernel until every sample is terminated or `max_steps` is reached.
///
/// Holds the caller's planes for its lifetime; `run()` updates the mutable planes in place
/// (on the host team) and `to_host()` brings them home (a no-op on the host team).
pub struct Runner<'a, K: Kernel> {
    deployed: Deployed<K>,
    options: Options,
    steps: Steps,
    reorder_key: Option<usize>,
    planes: Bound<'a, K::Real>,
    terminated: Vec<bool>,
}

/// A runner with the seed's defaults: `until_done(deploy(kernel)?, 10_000, planes)`.
///
/// ```
/// use hawk::builtin::{Oscillator, OscillatorPlanes};
/// let n = 1000;
/// let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
/// let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
/// let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
/// let deployed = eagle_runtime::deploy(Oscillator).unwrap();
/// let mut runner = eagle_runtime::until_done(&deployed, 10_000, planes).unwrap();
/// let report = runner.run().unwrap();
/// assert!(report.done);
/// assert_eq!(report.steps, 1024);
/// ```
pub fn until_done<'a, K: Kernel>(
    deployed: &Deployed<K>,
    max_steps: u64,
    planes: impl PlaneSource<'a, K::Real>,
) -> Result<Runner<'a, K>, Error>
where
    K::Real: HostReal,
{
    until_done_with(deployed, Options::new(max_steps), planes)
}

/// A runner with explicit [`Options`]. Every check happens here, before anything runs.
pub fn until_done_with<'a, K: Kernel>(
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
            K::PLANES
                .iter()
                .filter(|p| p.role != Role::Param)
                .position(|p| p.name == name)
                .ok_or_else(|| Error::ReorderKey {
                    kernel: K::NAME,
                    plane: name.clone(),
                })?,
        ),
    };
    let steps = options.steps.unwrap_or(K::STEPS);
    let n = planes.n;
    Ok(Runner {
        deployed: deployed.clone(),
        options,
        steps,
        reorder_key,
        planes,
        terminated: vec![false; n],
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

    /// Per-sample terminated flags after the last run, in the caller's order.
    pub fn terminated(&self) -> &[bool] {
        &self.terminated
    }

    /// A mutable plane's current contents (after `to_host` on the device team).
    pub fn plane(&self, name: &str) -> Result<&[K::Real], Error> {
        K::PLANES
            .iter()
            .filter(|p| p.role == Role::Mut)
            .position(|p| p.name == name)
            .map(|j| &*self.planes.muts[j])
            .ok_or_else(|| Error::NoSuchPlane {
                plane: name.to_owned(),
            })
    }

    /// Brings the planes home. The host team's planes are already home, so this returns at
    /// once; on the device it is the one device-to-host copy.
    pub fn to_host(&mut self) -> Result<(), Error> {
        match &self.deployed.team {
            Team::Host(_) => Ok(()),
        }
    }

    /// Runs from the planes' current contents (every sample starts not terminated) until all
    /// samples terminate or `max_steps` steps. Results land in the caller's order.
    pub fn run(&mut self) -> Result<RunReport, Error> {
        match &self.deployed.team {
            Team::Host(team) => {
                let team = team.clone();
                Ok(self.run_host(&team))
            }
        }
    }

    /// Steps for the next launch, with `left` steps left before `max_steps`.
    fn next_k(&self, left: u64) -> u32 {
        let k = match self.steps {
            Steps::Fixed(k) => k,
            Steps::Auto => AUTO_STEPS_HOST,
        };
        k.min(u32::try_from(left).unwrap_or(u32::MAX))
    }

    fn run_host(&mut self, team: &hawk_host::HostTeam) -> RunReport {
        let p = &self.planes;
        let mut work = WorkSet::new(
            p.ins.iter().map(|d| d.to_vec()).collect(),
            p.params.clone(),
            p.muts.iter().map(|d| d.to_vec()).collect(),
        );
        let mut report = RunReport {
            samples: p.n,
            team: "host",
            ..RunReport::default()
        };
        if let Some(j) = self.reorder_key {
            let key = per_sample_plane::<K>(p, j);
            let mut order: Vec<usize> = (0..p.n).collect();
            order.sort_by(|&a, &b| {
                key[a]
                    .partial_cmp(&key[b])
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            work.permute(&order);
            report.reorders += 1;
        }
        // Samples compacted away wait here, in the caller's order, until the run ends.
        let mut home: Option<Home<K::Real>> = None;
        let mut active = p.n;
        while active > 0 && report.steps < self.options.max_steps {
            let k = self.next_k(self.options.max_steps - report.steps);
            report.slots_by_launch.push(work.len());
            active = team.launch::<K>(&mut work, k);
            report.launches += 1;
            report.steps += u64::from(k);
            *report.launches_by_k.entry(k).or_default() += 1;
            report.active_by_launch.push(active);
            if active > 0 && self.options.compaction.due(work.len(), active) {
                let h = home.get_or_insert_with(|| Home::of(&self.planes));
                team.install(|| work.compact(&mut h.muts, &mut h.terminated));
                report.compactions += 1;
            }
        }
        // Write every sample home, then into the caller's planes in one pass.
        if work.in_caller_order() {
            for (j, dst) in self.planes.muts.iter_mut().enumerate() {
                dst.copy_from_slice(work.mutable(j));
            }
            for (d, &s) in self.terminated.iter_mut().zip(work.terminated()) {
                *d = s != 0;
            }
        } else {
            let mut h = home.unwrap_or_else(|| Home::of(&self.planes));
            work.scatter(&mut h.muts, &mut h.terminated);
            for (dst, src) in self.planes.muts.iter_mut().zip(&h.muts) {
                dst.copy_from_slice(src);
            }
            for (d, &s) in self.terminated.iter_mut().zip(&h.terminated) {
                *d = s != 0;
            }
        }
        report.active = active;
        report.done = active == 0;
        report
    }
}

/// Where samples wait in the caller's order once compaction moved them out of the work set.
struct Home<R> {
    muts: Vec<Vec<R>>,
    terminated: Vec<u8>,
}

impl<R: Copy> Home<R> {
    /// A copy of the caller's mutable planes, nothing terminated.
    fn of(planes: &Bound<'_, R>) -> Self {
        Home {
            muts: planes.muts.iter().map(|d| d.to_vec()).collect(),
            terminated: vec![0; planes.n],
        }
    }
}

/// The `j`-th per-sample plane (inputs and mutables, in the kernel's declaration order).
fn per_sample_plane<'b, K: Kernel>(p: &'b Bound<'_, K::Real>, j: usize) -> &'b [K::Real] {
    let spec = K::PLANES.iter().filter(|s| s.role != Role::Param).nth(j);
    let spec = spec.expect("index from K::PLANES");
    let nth_of = |role: Role| {
        K::PLANES
            .iter()
            .filter(|s| s.role == role)
            .position(|s| s.name == spec.name)
            .expect("plane is in its role list")
    };
    match spec.role {
        Role::In => p.ins[nth_of(Role::In)],
        _ => p.muts[nth_of(Role::Mut)],
    }
}
