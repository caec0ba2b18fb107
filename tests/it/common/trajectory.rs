//! Trajectory checks shared by the host tests (`tests/it/trajectory.rs`) and every device
//! backend (`device_tests!`): a saved point equals, bit for bit, a run stopped exactly there.

use super::Ens;
use eagle::hawk::builtin::{LorenzRk78, LorenzRk78Planes, Oscillator};
use eagle::{Options, PointStatus, SaveAt, Status, Target, Trajectory};

pub const T_END: f64 = 1.0;
pub const DT: f64 = 1e-3;

/// Runs `start` on `choice` with `options` (which save points), brings everything home,
/// and returns the trajectory and the final planes.
pub fn saved_on(start: &Ens, choice: Target, options: Options) -> (Trajectory<f64>, Ens) {
    let mut e = start.clone();
    let deployed = eagle::deploy(Oscillator, choice).unwrap();
    let mut runner = eagle::until_done(&deployed, options, e.planes(T_END, DT)).unwrap();
    runner.run().unwrap();
    runner.to_host().unwrap();
    let traj = runner
        .trajectory()
        .unwrap()
        .expect("the run saved points")
        .clone();
    drop(runner);
    (traj, e)
}

/// For each point of `SaveAt::every(m)` up to `max_steps`: the planes and statuses of a
/// host run of `start` stopped exactly there (`max_steps = (j + 1) m`).
pub fn stopped_runs(start: &Ens, m: u64, max_steps: u64) -> Vec<(Ens, Vec<Status>)> {
    let deployed = eagle::deploy(Oscillator, Target::Host(Default::default())).unwrap();
    (1..=max_steps / m)
        .map(|j| {
            let mut e = start.clone();
            let status = {
                let opts = Options::new(j * m);
                let mut r = eagle::until_done(&deployed, opts, e.planes(T_END, DT)).unwrap();
                r.run().unwrap();
                r.status().to_vec()
            };
            (e, status)
        })
        .collect()
}

fn point_status(s: Status) -> PointStatus {
    match s {
        Status::Finished => PointStatus::Finished,
        Status::Failed => PointStatus::Failed,
        _ => PointStatus::Running,
    }
}

/// Every point of `traj` (all of x, v, t saved) equals the stopped run's planes and status,
/// bit for bit.
pub fn assert_matches_stopped(traj: &Trajectory<f64>, stopped: &[(Ens, Vec<Status>)], what: &str) {
    assert_eq!(traj.points(), stopped.len(), "{what}");
    assert_eq!(traj.plane_names(), &["x", "v", "t"], "{what}");
    let n = traj.samples();
    for (j, (e, status)) in stopped.iter().enumerate() {
        for (name, want) in [("x", &e.x), ("v", &e.v), ("t", &e.t)] {
            let got = &traj.plane(name).unwrap()[j * n..(j + 1) * n];
            let bad = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits());
            assert!(
                bad.is_none(),
                "{what}: point {j} plane {name} sample {:?}: saved {} vs stopped run {}",
                bad,
                got[bad.unwrap()],
                want[bad.unwrap()]
            );
        }
        for (i, &s) in status.iter().enumerate() {
            assert_eq!(
                traj.status(i, j),
                point_status(s),
                "{what}: point {j} sample {i}"
            );
        }
    }
}

/// `SaveAt::every(m)` with every plane.
pub fn every(m: u64, max_steps: u64) -> Options {
    Options::new(max_steps).save(SaveAt::every(m))
}

/// The Lorenz ensemble with adaptive Fehlberg 7(8), saving at `times`; returns the
/// trajectory (every plane).
pub fn lorenz_at(times: &[f64], choice: Target, options: Options, n: usize) -> Trajectory<f64> {
    let rho: Vec<f64> = (0..n).map(|i| 21.0 * i as f64 / (n - 1) as f64).collect();
    let (mut x, mut y, mut z) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut t, mut h) = (vec![0.0; n], vec![1e-3; n]);
    let (mut acc, mut rej) = (vec![0.0; n], vec![0.0; n]);
    let planes = LorenzRk78Planes {
        rho: &rho,
        sigma: 10.0,
        beta: 8.0 / 3.0,
        t_end: 1.0,
        rtol: 1e-8,
        atol: 1e-8,
        x: &mut x,
        y: &mut y,
        z: &mut z,
        t: &mut t,
        h: &mut h,
        accepted: &mut acc,
        rejected: &mut rej,
    };
    let deployed = eagle::deploy(LorenzRk78, choice).unwrap();
    let o = options.save(SaveAt::times(times));
    let mut runner = eagle::until_done(&deployed, o, planes).unwrap();
    let r = runner.run().unwrap();
    assert!(r.done(), "{r:?}");
    runner.to_host().unwrap();
    runner.trajectory().unwrap().unwrap().clone()
}

pub fn bits(t: &Trajectory<f64>) -> Vec<u64> {
    t.plane_names()
        .iter()
        .flat_map(|p| t.plane(p).unwrap().iter().map(|v| v.to_bits()))
        .chain(t.status_bytes().iter().map(|&b| u64::from(b)))
        .collect()
}
