//! Trajectories on the host team: a saved point equals, bit for bit, the planes and status
//! of a run stopped exactly there, at every lane width, with compaction and reorder on and
//! off; saving at times lands adaptive steps on the times exactly; the size check refuses
//! before anything runs; the no-saving path is untouched.

use crate::common;
use crate::common::host;

use crate::common::Ens;
use crate::common::trajectory::{
    DT, T_END, assert_matches_stopped, bits, every, lorenz_at, saved_on, stopped_runs,
};
use eagle::hawk::Steps;
use eagle::hawk::builtin::Oscillator;
use eagle::{Compaction, Error, Options, PointStatus, Reorder, SaveAt};

#[test]
fn saved_points_equal_runs_stopped_there_at_every_lane_width() {
    // 1037 samples starting at different times: they finish between step 50 and 1000, so
    // lanes freeze inside lane groups and finished samples fill their later points.
    let start = Ens::varied(1037, 3);
    let (m, max_steps) = (37, 1000);
    let stopped = stopped_runs(&start, m, max_steps);
    // The check can fail: some points are past some samples' ends, some are not.
    let last = &stopped.last().unwrap().1;
    assert!(last.contains(&eagle::Status::Finished));
    assert!(last.iter().any(|s| *s != eagle::Status::Finished));
    // Every width the best instruction set (the one `isa: None` takes) is compiled for.
    for &lanes in eagle::Isa::detect().lane_widths() {
        for steps in [Steps::Auto, Steps::Fixed(50)] {
            let o = every(m, max_steps).steps(steps);
            let (traj, end) = saved_on(&start, host(lanes), o.clone());
            let what = format!("lanes {lanes} {steps:?}");
            assert_matches_stopped(&traj, &stopped, &what);
            // Saving does not change the run's results.
            let mut plain = start.clone();
            common::device::run_on(
                &mut plain,
                host(lanes),
                Options::new(max_steps).steps(steps),
            );
            assert!(
                plain.bits() == end.bits(),
                "{what}: results changed by saving"
            );
        }
    }
}

#[test]
fn compaction_and_reorder_never_change_what_is_saved_or_where() {
    let start = Ens::varied(2001, 5);
    let (m, max_steps) = (64, 960);
    let stopped = stopped_runs(&start, m, max_steps);
    for compaction in [Compaction::Off, Compaction::Always, Compaction::Auto] {
        for reorder in [Reorder::Off, Reorder::ByPlane("t".into())] {
            for lanes in [1, 4, 12] {
                let o = every(m, max_steps)
                    .steps(Steps::Fixed(20))
                    .compaction(compaction)
                    .reorder(reorder.clone());
                let (traj, _) = saved_on(&start, host(lanes), o);
                let what = format!("{compaction:?} {reorder:?} lanes {lanes}");
                assert_matches_stopped(&traj, &stopped, &what);
            }
        }
    }
}

#[test]
fn a_second_run_reuses_the_buffer_and_overwrites_it() {
    let start = Ens::varied(300, 9);
    let deployed = eagle::deploy(Oscillator, host(4)).unwrap();
    let mut e = start.clone();
    let mut runner = eagle::until_done(&deployed, every(10, 200), e.planes(T_END, DT)).unwrap();
    runner.run().unwrap();
    let first = runner.trajectory().unwrap().unwrap().clone();
    let ptr = runner
        .trajectory()
        .unwrap()
        .unwrap()
        .plane("x")
        .unwrap()
        .as_ptr();
    // The second run continues from the first run's results: other points, same memory.
    runner.run().unwrap();
    let second = runner.trajectory().unwrap().unwrap();
    assert_eq!(second.plane("x").unwrap().as_ptr(), ptr, "reallocated");
    assert_ne!(second.plane("t").unwrap(), first.plane("t").unwrap());
    assert_eq!(second.steps().unwrap()[..3], [10, 20, 30]);
}

#[test]
fn cancelled_points_are_not_reached_and_resume_fills_them() {
    let start = Ens::varied(500, 21);
    let stopped = stopped_runs(&start, 25, 500);
    let deployed = eagle::deploy(Oscillator, host(8)).unwrap();
    let mut e = start.clone();
    let o = every(25, 500).steps(Steps::Fixed(100));
    let mut runner = eagle::until_done(&deployed, o, e.planes(T_END, DT)).unwrap();
    runner.cancel_handle().cancel();
    runner.run().unwrap();
    let t = runner.trajectory().unwrap().unwrap();
    assert!((0..t.points()).all(|j| t.status(0, j) == PointStatus::NotReached));
    runner.resume().unwrap();
    assert_matches_stopped(runner.trajectory().unwrap().unwrap(), &stopped, "resumed");
}

#[test]
fn a_subset_of_planes_and_typed_access() {
    let start = Ens::varied(100, 2);
    let o = Options::new(100).save(SaveAt::every(10).planes(&["t", "x"]));
    let (traj, _) = saved_on(&start, host(4), o);
    // Declaration order, whatever order they were asked in.
    assert_eq!(traj.plane_names(), &["x", "t"]);
    assert_eq!(traj.points(), 10);
    assert_eq!(traj.samples(), 100);
    assert!(traj.plane("v").is_err());
    let series = traj.series(7, "t").unwrap();
    assert_eq!(series.len(), 10);
    assert_eq!(series[3], traj.get(7, 3, "t").unwrap());
    assert_eq!(traj.bytes(), 10 * 100 * (2 * 8 + 1));
}

#[test]
fn refusals_name_the_problem_and_leave_planes_untouched() {
    let start = Ens::varied(1000, 4);
    let deployed = eagle::deploy(Oscillator, host(4)).unwrap();
    let refuse = |o: Options| {
        let mut e = start.clone();
        let err = match eagle::until_done(&deployed, o, e.planes(T_END, DT)) {
            Ok(_) => panic!("accepted"),
            Err(err) => err,
        };
        assert!(e.bits() == start.bits(), "planes changed by a refused run");
        err
    };
    // 100 points x 1000 samples x (3 planes x 8 bytes + 1) = 2.5 MB.
    let e = refuse(every(10, 1000).trajectory_limit(1_000_000));
    let Error::TrajectoryTooLarge { bytes, limit, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*bytes, *limit), (2_500_000, 1_000_000));
    let msg = e.to_string();
    for part in ["2.5 MB", "1.0 MB", "SaveAt::planes", "f32", "fewer points"] {
        assert!(msg.contains(part), "{msg}");
    }
    // Just fits.
    let o = every(10, 1000).trajectory_limit(2_500_000);
    let mut e = start.clone();
    assert!(eagle::until_done(&deployed, o, e.planes(T_END, DT)).is_ok());
    // More than any machine has: refused before anything is allocated.
    let huge = Options::new(1_000_000_000).save(SaveAt::every(1));
    assert!(matches!(refuse(huge), Error::TrajectoryTooLarge { .. }));
    // A step cap meant as a safety net: 10^6 steps saved every 10 is 10^5 points x 1000
    // samples x 25 bytes = 2.5 GB, over the default limit (1 GiB) without a word from the
    // caller, so it is refused (the message says how to allow it) instead of allocated.
    let e = refuse(every(10, 1_000_000));
    let Error::TrajectoryTooLarge { bytes, limit, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!((*bytes, *limit), (2_500_000_000, 1 << 30));
    let msg = e.to_string();
    for part in [
        "default trajectory limit",
        "Options::trajectory_limit",
        "SaveAt::times",
    ] {
        assert!(msg.contains(part), "{msg}");
    }
    for (o, part) in [
        (every(0, 100), "SaveAt::every(0)"),
        (every(101, 100), "max_steps = 100"),
        (Options::new(9).save(SaveAt::times(&[])), "no time"),
        (
            Options::new(9).save(SaveAt::times(&[0.5, 0.5])),
            "strictly increasing",
        ),
        (
            Options::new(9).save(SaveAt::times(&[0.1, f64::NAN])),
            "finite",
        ),
        (
            Options::new(9).save(SaveAt::every(1).planes(&["omega"])),
            "no mutable plane `omega`",
        ),
    ] {
        let msg = refuse(o).to_string();
        assert!(msg.contains(part), "{msg}");
    }
}

#[test]
fn saving_at_times_needs_a_time_plane() {
    use eagle::hawk::builtin::MathExpLog;
    let n = 4;
    let x = vec![0.5; n];
    let mut y = vec![0.0; n];
    let planes = eagle::PlaneSet::new().input("x", &x).mutable("y", &mut y);
    // Its portable host loops: a refusal before any launch, whatever the loops.
    let deployed = eagle::deploy(eagle::hawk::PortableLoops(MathExpLog), host(1)).unwrap();
    let o = Options::new(9).save(SaveAt::times(&[1.0]));
    let err = eagle::until_done(&deployed, o, planes).err().unwrap();
    assert!(err.to_string().contains("#[kernel(time = t)]"), "{err}");
}

#[test]
fn adaptive_steps_land_exactly_on_save_times() {
    let times: Vec<f64> = (0..=10).map(|j| j as f64 / 10.0).collect();
    let n = 203;
    let want = lorenz_at(&times, host(1), Options::new(100_000), n);
    let t = want.plane("t").unwrap();
    for (j, &tj) in times.iter().enumerate() {
        for i in 0..n {
            assert_eq!(t[j * n + i], tj, "sample {i} point {j}: not on the time");
            let s = want.status(i, j);
            let last = j == times.len() - 1;
            assert_eq!(
                s,
                if last {
                    PointStatus::Finished
                } else {
                    PointStatus::Running
                }
            );
        }
    }
    // Point 0 is the initial state (t = 0 is a save time).
    assert_eq!(want.get(5, 0, "x").unwrap(), 1.0);
    // The same bits at every lane width, with compaction and reorder.
    for lanes in [2, 8, 16, 64] {
        for (c, r) in [
            (Compaction::Off, Reorder::Off),
            (Compaction::Always, Reorder::ByPlane("rho".into())),
        ] {
            let o = Options::new(100_000)
                .steps(Steps::Fixed(9))
                .compaction(c)
                .reorder(r);
            let got = lorenz_at(&times, host(lanes), o, n);
            assert!(
                bits(&got) == bits(&want),
                "lanes {lanes}: saved points differ"
            );
        }
    }
}

#[test]
fn fixed_step_kernels_save_the_first_state_at_or_past_each_time() {
    // The oscillator does not clip its steps: point j is the first state with t >= times[j].
    let start = Ens::varied(257, 12);
    let times = [0.05, 0.3, 0.30001, 0.6, 0.97, 2.0];
    let o = Options::new(100_000).save(SaveAt::times(&times));
    let (traj, end) = saved_on(&start, host(4), o);
    let n = traj.samples();
    for (j, &tj) in times.iter().enumerate() {
        for i in 0..n {
            let t = traj.get(i, j, "t").unwrap();
            match traj.status(i, j) {
                // The first state at or past the time: one step past it, or the initial
                // state of a sample that starts later.
                PointStatus::Running => {
                    assert!(t >= tj && (t - DT < tj || t == start.t[i]), "{i} {j} {t}")
                }
                // Finished before the time: its final state.
                PointStatus::Finished => assert_eq!(t, end.t[i], "{i} {j}"),
                s => panic!("{s:?}"),
            }
        }
    }
    // Nobody reaches t = 2: every sample keeps its final state there, marked finished.
    assert!((0..n).all(|i| traj.status(i, 5) == PointStatus::Finished));
    // And 0.3 and 0.30001 fall within one step for most samples: the same state twice.
    let same = (0..n)
        .filter(|&i| traj.get(i, 1, "x").unwrap() == traj.get(i, 2, "x").unwrap())
        .count();
    assert!(same > n / 2, "{same}");
    let _ = T_END;
}

#[test]
fn npz_files_round_trip() {
    let start = Ens::varied(123, 6);
    let (traj, _) = saved_on(&start, host(4), every(10, 300));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("traj.npz");
    traj.write_npz(&path, &[("omega", &start.omega)]).unwrap();
    let file = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
    let mut zip = zip::ZipArchive::new(file).unwrap();
    let mut names: Vec<String> = zip.file_names().map(str::to_owned).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "omega.npy",
            "status.npy",
            "steps.npy",
            "t.npy",
            "v.npy",
            "x.npy"
        ]
    );
    let (p, n) = (traj.points() as u64, traj.samples() as u64);
    fn read<T: npyz::Deserialize>(
        zip: &mut zip::ZipArchive<impl std::io::Read + std::io::Seek>,
        name: &str,
    ) -> (Vec<u64>, Vec<T>) {
        let f = zip
            .by_name(&npyz::npz::file_name_from_array_name(name))
            .unwrap();
        let a = npyz::NpyFile::new(f).unwrap();
        (a.shape().to_vec(), a.into_vec().unwrap())
    }
    for plane in ["x", "v", "t"] {
        let (shape, got) = read::<f64>(&mut zip, plane);
        assert_eq!(shape, [p, n]);
        let want = traj.plane(plane).unwrap();
        assert!(
            got.iter()
                .zip(want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{plane}"
        );
    }
    let (shape, status) = read::<u8>(&mut zip, "status");
    assert_eq!(shape, [p, n]);
    assert_eq!(status, traj.status_bytes());
    assert_eq!(read::<u64>(&mut zip, "steps").1, traj.steps().unwrap());
    assert_eq!(read::<f64>(&mut zip, "omega").1, start.omega);
    // An input of the wrong length is refused.
    assert!(
        traj.write_npz(&path, &[("omega", &start.omega[1..])])
            .is_err()
    );
}
