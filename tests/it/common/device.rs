//! Device-team checks shared by the emulated-device tests and the real-GPU tests: the same
//! assertions against the host team, for every arm and compaction strategy, and
//! [`device_tests!`](crate::device_tests), which instantiates one set of test bodies per
//! backend (as candle's `test_device!` does): `device_tests!(emulated,
//! Target::Emulated, EMULATED)` in `device_emulated.rs`, `device_tests!(gpu,
//! Target::Device(0), GPU, ignore)` in `device_gpu.rs`. A test that belongs to every
//! backend goes into the macro, never into one file's list.

use super::Ens;
use eagle::hawk::Steps;
use eagle::hawk::builtin::Oscillator;
use eagle::{Arm, Compaction, DeviceCompaction, HostConfig, Options, Reorder, RunReport, Target};

pub const T_END: f64 = 1.0;
pub const DT: f64 = 1e-3;

/// Ensemble sizes per backend: the emulated device runs on the CPU, a GPU wants many
/// samples.
pub struct Sizes {
    /// Every arm x strategy x policy x reorder x cap ([`check_all`]).
    pub all: usize,
    /// The graph rules ([`check_graph_rules`]).
    pub graph: usize,
    /// The one-replay WHILE loop.
    pub while_loop: usize,
    /// A large ensemble, each arm x strategy, compaction `Auto`, reordered.
    pub large: usize,
}

/// Sizes for the emulated device (a CPU).
pub const EMULATED: Sizes = Sizes {
    all: 1500,
    graph: 700,
    while_loop: 900,
    large: 3000,
};

/// Sizes for a real GPU.
pub const GPU: Sizes = Sizes {
    all: 20_000,
    graph: 50_000,
    while_loop: 100_000,
    large: 300_000,
};

/// `choice`, once it can run here: a device team needs the embedded PTX, and
/// `Target::Device(0)` a CUDA GPU. Otherwise the test fails saying why (GPU tests are
/// `#[ignore]`d, so this runs only when asked for with `--ignored`: never a silent pass).
pub fn require(choice: Target) -> Target {
    assert!(
        eagle::ptx::PTX.is_some(),
        "this build has no PTX (EAGLE_SKIP_PTX=1): a device team cannot be tested"
    );
    if choice == Target::Device(0)
        && let Some(why) = eagle::device_unavailable_reason()
    {
        panic!("needs a CUDA GPU: {why}");
    }
    choice
}

/// One set of device tests for one backend, in a module named `$name`: every check the
/// emulated device and a real GPU share. `device_tests!(name, choice, sizes)`, or with a
/// trailing `ignore` for a backend this machine may lack (`#[ignore = "needs a CUDA GPU"]`:
/// reported as ignored without one, run with `--ignored` where there is one).
#[macro_export]
macro_rules! device_tests {
    ($name:ident, $choice:expr, $sizes:expr) => {
        $crate::device_tests!(@set $name, $choice, $sizes, []);
    };
    ($name:ident, $choice:expr, $sizes:expr, ignore) => {
        $crate::device_tests!(@set $name, $choice, $sizes, [#[ignore = "needs a CUDA GPU"]]);
    };
    (@set $name:ident, $choice:expr, $sizes:expr, [$(#[$attr:meta])*]) => {
        mod $name {
            // The caller's names (its `$choice` and `$sizes` are written in its scope).
            #[allow(unused_imports)]
            use super::*;
            use eagle::{Arm, Compaction, DeviceCompaction, Options, Reorder};
            use $crate::common::device::{self as dev, ARMS, STRATEGIES, Sizes};

            const SIZES: Sizes = $sizes;

            /// The backend under test (fails, saying why, where it cannot run).
            fn team() -> eagle::Target {
                dev::require($choice)
            }

            #[test]
            $(#[$attr])*
            fn equals_host_for_every_arm_and_strategy() {
                dev::check_all(&team(), SIZES.all);
            }

            #[test]
            $(#[$attr])*
            fn single_sample_and_one_step_cap() {
                let team = team();
                for arm in ARMS {
                    for n in [1, 255, 256, 257] {
                        dev::check_against_host(&team, n, 3, Options::new(1).arm(arm));
                        let o = Options::new(10_000)
                            .arm(arm)
                            .compaction(Compaction::Always)
                            .device_compaction(DeviceCompaction::Gather)
                            .reorder(Reorder::ByPlane("t".into()));
                        dev::check_against_host(&team, n, 4, o);
                    }
                }
            }

            #[test]
            $(#[$attr])*
            fn graph_rules() {
                let team = team();
                dev::check_graph_rules(&team, Arm::Graph, SIZES.graph);
                dev::check_graph_rules(&team, Arm::GraphWhile, SIZES.graph);
            }

            #[test]
            $(#[$attr])*
            fn graph_while_is_one_replay() {
                let o = Options::new(10_000)
                    .arm(Arm::GraphWhile)
                    .compaction(Compaction::Off);
                let r = dev::check_against_host(&team(), SIZES.while_loop, 11, o);
                assert_eq!(r.graph_replays, 1, "{r:?}");
                assert!(r.notes.is_empty(), "{r:?}");
                assert!(r.done());
            }

            #[test]
            $(#[$attr])*
            fn large_ensemble_each_arm_and_strategy() {
                let team = team();
                for arm in ARMS {
                    for s in STRATEGIES {
                        let o = Options::new(10_000)
                            .arm(arm)
                            .device_compaction(s)
                            .compaction(Compaction::Auto)
                            .reorder(Reorder::ByPlane("t".into()));
                        let r = dev::check_against_host(&team, SIZES.large, 17, o);
                        println!(
                            "{:?} {:?}: launches {} compactions {} build {:.3} ms notes {:?}",
                            r.arm,
                            r.compaction_strategy,
                            r.launches,
                            r.compactions,
                            r.build_s * 1e3,
                            r.notes
                        );
                    }
                }
            }

            #[test]
            $(#[$attr])*
            fn trajectory_equals_runs_stopped_there() {
                use eagle::hawk::Steps;
                use $crate::common::trajectory as tr;
                let team = team();
                let start = $crate::common::Ens::varied(SIZES.graph, 31);
                let (m, max_steps) = (37, 1000);
                let stopped = tr::stopped_runs(&start, m, max_steps);
                for arm in ARMS {
                    for s in STRATEGIES {
                        for (c, r) in [
                            (Compaction::Off, Reorder::Off),
                            (Compaction::Always, Reorder::ByPlane("t".into())),
                        ] {
                            let o = tr::every(m, max_steps)
                                .steps(Steps::Fixed(20))
                                .arm(arm)
                                .device_compaction(s)
                                .compaction(c)
                                .reorder(r);
                            let what = format!("{o:?}");
                            let (traj, _) = tr::saved_on(&start, team.clone(), o);
                            tr::assert_matches_stopped(&traj, &stopped, &what);
                        }
                    }
                }
            }

            #[test]
            $(#[$attr])*
            fn trajectory_comes_home_with_to_host() {
                use eagle::hawk::builtin::Oscillator;
                use $crate::common::trajectory as tr;
                let mut e = $crate::common::Ens::varied(300, 8);
                let deployed = eagle::deploy(Oscillator, team()).unwrap();
                let o = tr::every(10, 500).arm(Arm::GraphWhile);
                let mut runner = eagle::until_done(&deployed, o, e.planes(1.0, 1e-3)).unwrap();
                let report = runner.run().unwrap();
                assert!(
                    report.notes.iter().any(|n| n.contains("fell back to graph: saving")),
                    "{report:?}"
                );
                // run() leaves the points on the device: reading them first is an error
                // naming to_host(), never stale points.
                let err = runner.trajectory().unwrap_err();
                assert!(
                    matches!(&err, eagle::Error::NotHome { what } if what == "trajectory"),
                    "{err:?}"
                );
                runner.to_host().unwrap();
                let t = runner.trajectory().unwrap().unwrap();
                assert!(t.status_bytes().iter().all(|&b| b != 0));
            }

            #[test]
            $(#[$attr])*
            fn adaptive_saves_at_times_equal_host() {
                use eagle::hawk::Steps;
                use $crate::common::trajectory as tr;
                let times: Vec<f64> = (1..=8).map(|j| j as f64 / 8.0).collect();
                let host = eagle::Target::Host(Default::default());
                let n = 200;
                let want = tr::lorenz_at(&times, host, Options::new(100_000), n);
                for arm in [Arm::Simulate, Arm::Graph] {
                    for s in STRATEGIES {
                        let o = Options::new(100_000)
                            .steps(Steps::Fixed(16))
                            .arm(arm)
                            .device_compaction(s)
                            .compaction(Compaction::Always)
                            .reorder(Reorder::ByPlane("rho".into()));
                        let got = tr::lorenz_at(&times, team(), o, n);
                        assert!(tr::bits(&got) == tr::bits(&want), "{arm:?} {s:?}");
                    }
                }
            }

            #[test]
            $(#[$attr])*
            fn a_runner_moved_to_another_thread_goes_on() {
                // Each run of a runner may come from another thread (a fleet's scoped
                // threads do this): the second run, with saving, starts on a thread where
                // the device's context was never bound.
                let on = |other_thread| dev::two_saving_runs(&team(), 400, other_thread);
                assert!(on(true) == on(false));
            }

            #[test]
            $(#[$attr])*
            fn two_runners_of_one_deployment_run_at_once() {
                dev::concurrent_runners(&team(), SIZES.graph);
            }

            #[test]
            $(#[$attr])*
            fn results_stay_on_the_device_until_to_host() {
                use eagle::hawk::builtin::Oscillator;
                let mut e = $crate::common::Ens::varied(300, 8);
                let start = e.clone();
                let deployed = eagle::deploy(Oscillator, team()).unwrap();
                assert_eq!(deployed.team().kind(), eagle::TeamKind::Device);
                let planes = e.planes(1.0, 1e-3);
                let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
                let report = runner.run().unwrap();
                assert!(report.done());
                // run() leaves the results on the device: reading them first is an error
                // naming to_host(), never the stale start.
                let err = runner.plane("x").unwrap_err();
                assert!(
                    matches!(&err, eagle::Error::NotHome { what } if what == "plane `x`"),
                    "{err:?}"
                );
                assert!(err.to_string().contains("call Runner::to_host() first"), "{err}");
                runner.to_host().unwrap();
                assert_ne!(runner.plane("x").unwrap(), &start.x[..]);
                assert!(runner.terminated().iter().all(|&d| d));
            }
        }
    };
}

/// Two capped runs of one runner, saving every 10 steps, the second on another thread
/// when `other_thread`; returns the planes' bits and the trajectory's, after both.
pub fn two_saving_runs(choice: &Target, n: usize, other_thread: bool) -> (Vec<u64>, Vec<u64>) {
    use super::trajectory as tr;
    let mut e = Ens::varied(n, 23);
    let deployed = eagle::deploy(Oscillator, choice.clone()).unwrap();
    let o = tr::every(10, 200).arm(Arm::Graph);
    let mut runner = eagle::until_done(&deployed, o, e.planes(T_END, DT)).unwrap();
    runner.run().unwrap();
    if other_thread {
        std::thread::scope(|s| s.spawn(|| runner.run().map(|_| ())).join().unwrap()).unwrap();
    } else {
        runner.run().unwrap();
    }
    runner.to_host().unwrap();
    let traj = tr::bits(runner.trajectory().unwrap().unwrap());
    drop(runner);
    (e.bits(), traj)
}

/// Two threads, each running four ensembles one after another with runners of one shared
/// deployment (graphs captured while the other thread launches): each equals the host team.
pub fn concurrent_runners(choice: &Target, n: usize) {
    let deployed = eagle::deploy(Oscillator, choice.clone()).unwrap();
    let host = eagle::deploy(Oscillator, Target::Host(HostConfig::default())).unwrap();
    let options = Options::new(10_000)
        .arm(Arm::Graph)
        .compaction(Compaction::Always)
        .device_compaction(DeviceCompaction::Gather);
    std::thread::scope(|s| {
        for thread in 0..2u64 {
            let (deployed, host, options) = (&deployed, &host, &options);
            s.spawn(move || {
                for round in 0..4 {
                    let start = Ens::varied(n, 100 + 10 * thread + round);
                    let (mut got, mut want) = (start.clone(), start);
                    let mut r = eagle::until_done(host, options.clone(), want.planes(T_END, DT));
                    r.as_mut().unwrap().run().unwrap();
                    drop(r);
                    let planes = got.planes(T_END, DT);
                    let mut r = eagle::until_done(deployed, options.clone(), planes).unwrap();
                    r.run().unwrap();
                    r.to_host().unwrap();
                    drop(r);
                    assert!(got.bits() == want.bits(), "thread {thread}, round {round}");
                }
            });
        }
    });
}

pub const ARMS: [Arm; 3] = [Arm::Simulate, Arm::Graph, Arm::GraphWhile];
pub const STRATEGIES: [DeviceCompaction; 2] =
    [DeviceCompaction::IndexList, DeviceCompaction::Gather];

/// Runs `e` on `choice` with `options`, brings it home; returns the report and flags.
pub fn run_on(e: &mut Ens, choice: Target, options: Options) -> (RunReport, Vec<bool>) {
    let deployed = eagle::deploy(Oscillator, choice).unwrap();
    let planes = e.planes(T_END, DT);
    let mut runner = eagle::until_done(&deployed, options, planes).unwrap();
    let report = runner.run().unwrap();
    runner.to_host().unwrap();
    (report, runner.terminated().to_vec())
}

/// The device team on `choice` against the host team: bitwise-equal planes, equal flags,
/// the same steps and launches; compactions counted on arms that compact.
pub fn check_against_host(choice: &Target, n: usize, seed: u64, options: Options) -> RunReport {
    let start = Ens::varied(n, seed);
    let mut want = start.clone();
    let host_opts = options.clone().arm(Arm::Simulate);
    let (host, host_done) = run_on(&mut want, Target::Host(HostConfig::default()), host_opts);
    let mut got = start.clone();
    let what = format!("{choice:?} {options:?}");
    let (dev, dev_done) = run_on(&mut got, choice.clone(), options.clone());
    assert_eq!(dev.team, eagle::TeamKind::Device, "{what}");
    assert_eq!(got.omega, start.omega, "input plane changed: {what}");
    assert!(
        got.bits() == want.bits(),
        "planes differ from the host team: {what}"
    );
    assert_eq!(dev_done, host_done, "terminated flags differ: {what}");
    assert_eq!(dev.done(), host.done(), "{what}");
    assert_eq!(dev.active, host.active, "{what}");
    assert_eq!(dev.reorders, host.reorders, "{what}");
    let while_ran =
        dev.arm == Some(Arm::GraphWhile) && dev.notes.iter().all(|n| !n.contains("fell back"));
    // Steps::Auto shortens k once samples finish (a host decision between launches); the
    // WHILE graph keeps its first k on the device, so only the results must agree there.
    let auto = matches!(options.steps, None | Some(Steps::Auto));
    if !while_ran || !auto {
        assert_eq!(dev.steps, host.steps, "{what}");
        assert_eq!(dev.launches, host.launches, "{what}");
        assert_eq!(dev.launches_by_k, host.launches_by_k, "{what}");
    } else {
        assert!(dev.steps >= host.steps, "{what}");
    }
    // On the host, Auto also weighs measured launch and pass times (`due_timed`), so its
    // compaction points are the device's only under Off and Always.
    let same_policy = options.compaction != Compaction::Auto;
    if !while_ran && same_policy {
        assert_eq!(dev.compactions, host.compactions, "{what}");
        assert_eq!(dev.active_by_launch, host.active_by_launch, "{what}");
        assert_eq!(dev.slots_by_launch, host.slots_by_launch, "{what}");
    } else if dev.launches == host.launches {
        // Compaction never changes which samples are active after a launch.
        assert_eq!(dev.active_by_launch, host.active_by_launch, "{what}");
    }
    if options.compaction == Compaction::Off {
        assert_eq!(dev.compactions, 0, "{what}");
    }
    dev
}

/// Every arm x compaction strategy x compaction policy x reorder, uncapped and capped by
/// `max_steps` (also with a k that does not divide it).
pub fn check_all(choice: &Target, n: usize) {
    let mut ran = 0;
    for arm in ARMS {
        for strategy in STRATEGIES {
            for compaction in [Compaction::Off, Compaction::Auto, Compaction::Always] {
                for reorder in [Reorder::Off, Reorder::ByPlane("omega".into())] {
                    for (max_steps, steps) in [
                        (10_000, Steps::Auto),
                        (10_000, Steps::Fixed(48)),
                        (300, Steps::Auto),
                        (301, Steps::Fixed(7)),
                    ] {
                        let options = Options::new(max_steps)
                            .steps(steps)
                            .arm(arm)
                            .device_compaction(strategy)
                            .compaction(compaction)
                            .reorder(reorder.clone());
                        let seed = 7 + ran;
                        let r = check_against_host(choice, n, seed, options);
                        assert_eq!(r.arm, Some(arm));
                        ran += 1;
                    }
                }
            }
        }
    }
    assert_eq!(ran, 3 * 2 * 3 * 2 * 4);
}

/// Graph rules: the first run builds (`build_s > 0`), a replay after changing plane
/// contents (same shapes) gives the new results with `build_s == 0`, and a changed shape
/// builds again.
pub fn check_graph_rules(choice: &Target, arm: Arm, n: usize) {
    let host = Target::Host(HostConfig::default());
    let options = Options::new(10_000).arm(arm).compaction(Compaction::Off);
    let deployed = eagle::deploy(Oscillator, choice.clone()).unwrap();
    let mut e = Ens::varied(n, 99);
    let fresh = Ens::varied(n, 1234);
    // The host team on e's omega (an input plane, unchanged) with fresh x, v, t.
    let mut want = Ens {
        omega: e.omega.clone(),
        ..fresh.clone()
    };
    let (_, want_done) = run_on(&mut want, host, options.clone().arm(Arm::Simulate));
    {
        let planes = e.planes(T_END, DT);
        let mut runner = eagle::until_done(&deployed, options.clone(), planes).unwrap();
        let first = runner.run().unwrap();
        assert!(first.build_s > 0.0, "first run must build: {first:?}");
        assert!(
            first.graphs_built > 0 && first.graph_replays > 0,
            "{first:?}"
        );
        // New contents, same shapes (omega is an input plane: keep it; x, v, t change).
        runner.plane_mut("x").unwrap().copy_from_slice(&fresh.x);
        runner.plane_mut("v").unwrap().copy_from_slice(&fresh.v);
        runner.plane_mut("t").unwrap().copy_from_slice(&fresh.t);
        let second = runner.run().unwrap();
        assert_eq!(second.build_s, 0.0, "a replay must not build: {second:?}");
        assert_eq!(second.graphs_built, 0, "{second:?}");
        assert!(second.graph_replays > 0, "{second:?}");
        runner.to_host().unwrap();
        assert_eq!(runner.terminated(), &want_done[..]);
    }
    assert!(
        e.bits() == want.bits(),
        "a replay after new contents differs from the host team"
    );
    // A changed shape builds again.
    let mut other = Ens::varied(n + 17, 5);
    let (changed, _) = run_on(&mut other, choice.clone(), options);
    assert!(
        changed.build_s > 0.0 && changed.graphs_built > 0,
        "{changed:?}"
    );
}
