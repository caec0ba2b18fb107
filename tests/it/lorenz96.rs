//! Lorenz-96 (40 sites in one array plane, `u: &mut [Scalar; 40]`): the host team equals a
//! scalar-lane loop over the kernel's own function bit for bit, and an independent Python
//! implementation (scripts/lorenz96_reference.py, run here) to 1e-12 relative; the emulated
//! device, compaction, reorder and two shards give the same bits; saved points name
//! components `u[j]`; wrong shapes are refused, naming the component.

use eagle::hawk::builtin::{LORENZ96_N as N, Lorenz96Rk4, Lorenz96Rk4Planes, lorenz96_rk4};
use eagle::shard::Devices;
use eagle::{Compaction, Error, HostConfig, Options, PlaneSet, Reorder, SaveAt, Target};
use std::process::Command;

const DT: f64 = 0.01;
const T_END: f64 = 1.0;

/// The ensemble of scripts/lorenz96_reference.py: forcing swept 6..10, start times
/// staggered (samples finish after 100 to 130 steps, so compaction moves them).
#[derive(Clone, PartialEq)]
struct Ens {
    forcing: Vec<f64>,
    /// Component-major: `u[j * n + i]` is site `j` of sample `i`.
    u: Vec<f64>,
    t: Vec<f64>,
}

impl Ens {
    fn new(n: usize) -> Self {
        let forcing: Vec<f64> = (0..n)
            .map(|i| 6.0 + 4.0 * i as f64 / (n - 1) as f64)
            .collect();
        let mut u = vec![0.0; N * n];
        for j in 0..N {
            for i in 0..n {
                u[j * n + i] = forcing[i] + ((7 * j + 3 * i) % 11) as f64 / 100.0;
            }
        }
        let t = (0..n).map(|i| -((i % 7) as f64) * 0.05).collect();
        Ens { forcing, u, t }
    }

    fn n(&self) -> usize {
        self.t.len()
    }

    fn planes(&mut self) -> Lorenz96Rk4Planes<'_> {
        Lorenz96Rk4Planes {
            forcing: &self.forcing,
            dt: DT,
            t_end: T_END,
            u: eagle::components_mut::<f64, N>(&mut self.u).unwrap(),
            t: &mut self.t,
        }
    }

    /// Sample `i`'s state and time.
    fn sample(&self, i: usize) -> Vec<f64> {
        let n = self.n();
        (0..N)
            .map(|j| self.u[j * n + i])
            .chain([self.t[i]])
            .collect()
    }

    fn bits(&self) -> Vec<u64> {
        self.u.iter().chain(&self.t).map(|v| v.to_bits()).collect()
    }
}

/// The kernel's own function on the scalar lane, one sample at a time.
fn scalar_reference(e: &mut Ens) {
    let n = e.n();
    for i in 0..n {
        let mut u: [f64; N] = std::array::from_fn(|j| e.u[j * n + i]);
        let mut t = e.t[i];
        let mut done = false;
        while !done {
            lorenz96_rk4::<f64>(e.forcing[i], DT, T_END, &mut done, &mut u, &mut t);
        }
        for j in 0..N {
            e.u[j * n + i] = u[j];
        }
        e.t[i] = t;
    }
}

/// Runs `e` on one team with `options`; every sample must finish.
fn run(deployed: &eagle::Deployed<Lorenz96Rk4>, options: Options, e: &mut Ens) {
    let mut runner = eagle::until_done(deployed, options, e.planes()).unwrap();
    let report = runner.run().unwrap();
    runner.to_host().unwrap();
    assert!(report.done(), "{report:?}");
}

/// [`run`] on a fleet (one shard per team).
fn run_fleet(fleet: &eagle::shard::Fleet<Lorenz96Rk4>, options: Options, e: &mut Ens) {
    let mut runner = eagle::until_done(fleet, options, e.planes()).unwrap();
    runner.run().unwrap();
    runner.to_host().unwrap();
    assert!(
        runner.terminated().iter().all(|&d| d),
        "a sample did not finish"
    );
}

fn host() -> Target {
    Target::Host(HostConfig::default())
}

#[test]
fn host_team_equals_the_scalar_lane_bit_for_bit_and_python_to_1e_12() {
    let start = Ens::new(37);
    let mut want = start.clone();
    scalar_reference(&mut want);
    let host = eagle::deploy(Lorenz96Rk4, host()).unwrap();
    let mut got = start.clone();
    run(&host, Options::new(1000), &mut got);
    assert!(got.bits() == want.bits(), "host team != scalar lane");
    assert_eq!(got.forcing, start.forcing, "the input plane changed");

    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/lorenz96_reference.py"
        ))
        .arg(start.n().to_string())
        .output()
        .expect("python3 runs scripts/lorenz96_reference.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), start.n());
    let mut worst = 0.0f64;
    for (i, line) in lines.iter().enumerate() {
        let py: Vec<f64> = line.split(' ').map(|v| v.parse().unwrap()).collect();
        let ours = got.sample(i);
        assert_eq!(py.len(), ours.len());
        for (a, b) in ours.iter().zip(&py) {
            let rel = (a - b).abs() / b.abs().max(1.0);
            worst = worst.max(rel);
        }
    }
    println!("Lorenz-96 RK4 f64, 37 samples: max relative difference from Python {worst:e}");
    assert!(
        worst <= 1e-12,
        "max relative difference from Python {worst:e}"
    );
}

#[test]
fn lane_widths_emulated_device_compaction_reorder_and_shards_give_the_same_bits() {
    let start = Ens::new(53);
    let mut want = start.clone();
    scalar_reference(&mut want);
    let check = |what: &str, deployment: &dyn Fn(Options, &mut Ens), options: Options| {
        let mut got = start.clone();
        deployment(options, &mut got);
        assert!(
            got.bits() == want.bits(),
            "{what}: differs from the scalar lane"
        );
    };
    for lanes in [1, 4, 8] {
        let d = eagle::deploy(
            Lorenz96Rk4,
            Target::Host(HostConfig {
                lanes: Some(lanes),
                threads: Some(2),
                ..HostConfig::default()
            }),
        )
        .unwrap();
        check(
            &format!("host, {lanes} lanes, compaction, reorder"),
            &|o, e| run(&d, o, e),
            Options::new(1000)
                .steps(eagle::Steps::Fixed(7))
                .compaction(Compaction::Always)
                .reorder(Reorder::ByPlane("forcing".into())),
        );
    }
    let emulated = eagle::deploy(Lorenz96Rk4, Target::Emulated).unwrap();
    check("emulated", &|o, e| run(&emulated, o, e), Options::new(1000));
    check(
        "emulated, compaction, reorder by a component",
        &|o, e| run(&emulated, o, e),
        Options::new(1000)
            .steps(eagle::Steps::Fixed(5))
            .compaction(Compaction::Always)
            .reorder(Reorder::ByPlane("u[3]".into())),
    );
    let fleet = eagle::deploy(Lorenz96Rk4, Devices::Teams(vec![host(), host()])).unwrap();
    check(
        "two host shards",
        &|o, e| run_fleet(&fleet, o, e),
        Options::new(1000),
    );
    let mixed = eagle::deploy(Lorenz96Rk4, Devices::Teams(vec![host(), Target::Emulated])).unwrap();
    check(
        "host and emulated shards",
        &|o, e| run_fleet(&mixed, o, e),
        Options::new(1000),
    );
}

#[test]
fn saved_points_name_components_and_a_run_by_name_matches_the_typed_planes() {
    let start = Ens::new(9);
    let mut want = start.clone();
    scalar_reference(&mut want);
    let host = eagle::deploy(Lorenz96Rk4, host()).unwrap();
    // By name: the array plane from a PlaneSet, saving one component and the time.
    let mut got = start.clone();
    let n = got.n();
    let options = Options::new(1000).save(SaveAt::every(10).planes(&["u[3]", "t"]));
    let traj = {
        let (forcing, u, t) = (&got.forcing, &mut got.u, &mut got.t);
        let set = PlaneSet::new()
            .input("forcing", forcing)
            .param("dt", DT)
            .param("t_end", T_END)
            .mutable_array("u", u.chunks_exact_mut(n))
            .mutable("t", t);
        let mut runner = eagle::until_done(&host, options, set).unwrap();
        runner.run().unwrap();
        runner.to_host().unwrap();
        runner.trajectory().unwrap().unwrap().clone()
    };
    assert!(got.bits() == want.bits(), "a run by name differs");
    assert_eq!(traj.plane_names(), ["u[3]", "t"]);
    // Point 9 (after 100 steps) of a sample that started at t = 0 is its final state.
    let u3 = traj.plane("u[3]").unwrap();
    let points = traj.points();
    assert_eq!(u3[9 * n].to_bits(), want.u[3 * n].to_bits());
    assert_eq!(u3.len(), points * n);
    // Saving the whole array plane by its name saves its 40 components.
    let options = Options::new(1000).save(SaveAt::every(50).planes(&["u"]));
    let mut e = start.clone();
    let mut runner = eagle::until_done(&host, options, e.planes()).unwrap();
    runner.run().unwrap();
    let names = runner.trajectory().unwrap().unwrap().plane_names().to_vec();
    assert_eq!(names.len(), N);
    assert_eq!((names[0].as_str(), names[39].as_str()), ("u[0]", "u[39]"));
}

#[test]
fn wrong_shapes_are_refused_naming_the_component_and_nothing_is_written() {
    let host = eagle::deploy(Lorenz96Rk4, host()).unwrap();
    let mut e = Ens::new(5);
    let before = e.clone();
    let n = e.n();
    let (forcing, t) = (e.forcing.clone(), &mut e.t);
    // 39 components: u[39] is missing.
    let set = PlaneSet::new()
        .input("forcing", &forcing)
        .param("dt", DT)
        .param("t_end", T_END)
        .mutable_array("u", e.u.chunks_exact_mut(n).take(N - 1))
        .mutable("t", t);
    let err = eagle::until_done(&host, 1000, set).err().unwrap();
    assert!(
        matches!(&err, Error::MissingPlane { plane, role, .. } if plane == "u[39]" && role == "&mut [Scalar; 40]"),
        "{err}"
    );
    // A component of another length.
    let mut short = vec![0.0; n - 1];
    let mut planes = e.planes();
    planes.u[7] = &mut short;
    let err = eagle::until_done(&host, 1000, planes).err().unwrap();
    assert!(
        matches!(&err, Error::LengthMismatch { plane, len, .. } if plane == "u[7]" && *len == n - 1),
        "{err}"
    );
    // A component beyond the array, and a buffer that does not split into 40.
    let set = PlaneSet::<f64>::new().mutable("u[40]", &mut short);
    let err = eagle::until_done(&host, 1000, set).err().unwrap();
    assert!(err.to_string().contains("u[0..40]"), "{err}");
    let mut odd = vec![0.0; 41];
    let err = eagle::components_mut::<f64, N>(&mut odd).err().unwrap();
    assert!(
        matches!(
            err,
            Error::ComponentBuffer {
                components: 40,
                len: 41
            }
        ),
        "{err}"
    );
    assert!(e == before, "a refused run wrote to the planes");
}
