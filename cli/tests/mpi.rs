//! eagle across MPI ranks (`eagle::shard::mpi`), for real, under `mpirun -np 2` and `-np 3`
//! (Open MPI; `scripts/setup.sh` installs it, and a missing `mpirun` fails these tests).
//! This test binary is itself the MPI program: each test starts `mpirun` on it with
//! `EAGLE_MPI_CHILD=1`, where the ignored test `child` runs the checks: three card
//! workloads (oscillator, Lorenz RK4 f32, Kepler) across ranks equal one process bit for
//! bit, static and dynamic; fewer samples
//! than ranks, one sample, empty shares; bad input on the root, a device fault on one rank
//! and a kernel that differs are the same error on every rank; a NaN sample is isolated as
//! in one process; distributed planes stay on their rank. The root prints one `ok:` line per
//! check; a failing check panics, and `mpirun` ends the job. The main job and the card
//! binary run under `mpirun -np 2` too. Every `mpirun` runs under `timeout`, one at a time.

use std::process::{Command, Output};
use std::sync::Mutex;

use eagle::hawk::builtin::{KeplerRk78, LorenzRk4, LorenzRk4F32, Oscillator, OscillatorPlanes};
use eagle::hawk::{Kernel, Real};
use eagle::hawk_host::HostReal;
use eagle::shard::mpi::rsmpi::topology::SimpleCommunicator;
use eagle::shard::mpi::{Balance, MpiError, Ranks, rsmpi};
use eagle::shard::{Devices, Fleet, share};
use eagle::testing::FaultPlan;
use eagle::{HostConfig, Options, PlaneSet, Status, Target};
use eagle_cli::card::{Deploy, Ensemble, MAX_STEPS, WithEnsemble, Workload};

type World<'c> = Ranks<'c, SimpleCommunicator>;

/// One thread and a fixed width per rank: ranks share 2 cores, and no probing.
fn host() -> HostConfig {
    HostConfig {
        threads: Some(1),
        lanes: Some(8),
        isa: None,
    }
}

fn host_fleet<K: Kernel>() -> Fleet<Deploy<K>>
where
    K::Real: HostReal,
{
    eagle::deploy(Deploy::<K>::default(), Devices::Host(host())).unwrap()
}

fn bits<R: Real>(planes: &[Vec<R>]) -> Vec<Vec<u64>> {
    planes
        .iter()
        .map(|p| p.iter().map(|v| v.to_f64().to_bits()).collect())
        .collect()
}

/// A workload's ensemble across the ranks vs one process.
#[derive(Clone, Copy)]
struct Equal<'r, 'c> {
    ranks: &'r World<'c>,
    tag: &'static str,
}

impl WithEnsemble for Equal<'_, '_> {
    type Out = ();
    fn with<K: Kernel>(self, w: Workload, e: Ensemble<K>)
    where
        K::Real: HostReal,
    {
        let fleet = host_fleet::<K>();
        let options = Options::new(MAX_STEPS);
        let size = self.ranks.size();
        let run = if self.ranks.is_root() {
            let one = eagle::deploy(Deploy::<K>::default(), Target::Host(host())).unwrap();
            let mut reference = e.clone();
            let want = reference.run(&one, options.clone()).unwrap();
            let mut mine = e.clone();
            let run = self
                .ranks
                .run_root(&fleet, &options, mine.planes())
                .unwrap();
            assert_eq!(
                bits(&mine.muts),
                bits(&reference.muts),
                "{} {}: results differ from one process",
                w.name(),
                self.tag
            );
            assert_eq!(run.status.len(), e.len());
            assert!(run.status.iter().all(|s| *s == Status::Finished));
            let m = &run.merged.report;
            assert!(m.done());
            assert_eq!((m.samples, m.finished), (e.len(), e.len()));
            // Samples of these workloads all end in the same launch: every rank takes one
            // process's launches, so the merged report reads as one process's.
            if self.tag == "static"
                && matches!(
                    w,
                    Workload::Oscillator | Workload::LorenzRk4F64 | Workload::LorenzRk4F32
                )
            {
                assert_eq!(m.to_string(), want.to_string(), "{}", w.name());
            }
            println!(
                "ok: {} {} n={} equals one process bit for bit ({})",
                w.name(),
                self.tag,
                e.len(),
                run.merged.to_string().replace('\n', "; ")
            );
            run
        } else {
            let run = self.ranks.run_other(&fleet, &options).unwrap();
            assert!(run.status.is_empty());
            run
        };
        assert_eq!(run.merged.parts.len(), size);
        assert_eq!(
            run.merged.parts.iter().map(|p| p.samples).sum::<usize>(),
            e.len()
        );
    }
}

/// The oscillator's planes on `n` samples (with `omega` as given).
fn oscillator_planes<'a>(
    omega: &'a [f64],
    x: &'a mut [f64],
    v: &'a mut [f64],
    t: &'a mut [f64],
) -> OscillatorPlanes<'a> {
    OscillatorPlanes {
        omega,
        t_end: 1.0,
        dt: 1e-3,
        x,
        v,
        t,
    }
}

fn omega(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 1.0 + 2.0 * i as f64 / (n.max(2) - 1) as f64)
        .collect()
}

/// The oscillator on `n` samples (`nan`: that sample's omega is NaN) across the ranks,
/// compared with one process on the root: results and status.
fn small(ranks: &World<'_>, n: usize, nan: Option<usize>, tag: &str) {
    let fleet = host_fleet::<Oscillator>();
    let options = Options::new(10_000);
    let mut om = omega(n);
    if let Some(i) = nan {
        om[i] = f64::NAN;
    }
    if ranks.is_root() {
        let one = eagle::deploy(Deploy::<Oscillator>::default(), Target::Host(host())).unwrap();
        let (mut x1, mut v1, mut t1) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
        let mut r = eagle::until_done(
            &one,
            10_000,
            oscillator_planes(&om, &mut x1, &mut v1, &mut t1),
        )
        .unwrap();
        let want = r.run().unwrap();
        let want_status = r.status().to_vec();
        drop(r);
        let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
        let run = ranks
            .run_root(
                &fleet,
                &options,
                oscillator_planes(&om, &mut x, &mut v, &mut t),
            )
            .unwrap();
        assert_eq!(run.status, want_status, "{tag}");
        assert_eq!(bits(&[x, v, t]), bits(&[x1, v1, t1]), "{tag}");
        assert_eq!(run.merged.report.failed, want.failed, "{tag}");
        if let Some(i) = nan {
            assert_eq!(run.status[i], Status::Failed);
        }
        let empty = run.merged.parts.iter().filter(|p| p.samples == 0).count();
        println!("ok: {tag} n={n} as one process ({empty} ranks ran nothing)");
    } else {
        ranks.run_other(&fleet, &options).unwrap();
    }
}

/// A plane of the wrong length on the root: every rank gets the runtime's own error.
fn bad_plane(ranks: &World<'_>, tag: &str) {
    let n = 10;
    let om = omega(n);
    let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n - 1], vec![0.0; n]);
    // What one process says, computed on every rank.
    let one = eagle::deploy(Deploy::<Oscillator>::default(), Target::Host(host())).unwrap();
    let want = eagle::until_done(&one, 100, oscillator_planes(&om, &mut x, &mut v, &mut t))
        .err()
        .unwrap()
        .to_string();
    let fleet = host_fleet::<Oscillator>();
    let options = Options::new(100);
    let got = if ranks.is_root() {
        ranks.run_root(
            &fleet,
            &options,
            oscillator_planes(&om, &mut x, &mut v, &mut t),
        )
    } else {
        ranks.run_other(&fleet, &options)
    };
    let err = got.expect_err("bad input must be refused on every rank");
    assert_eq!(
        err,
        MpiError {
            rank: 0,
            message: want.clone()
        }
    );
    assert_eq!(x, vec![1.0; n], "a refused run changes nothing");
    if ranks.is_root() {
        println!("ok: {tag} refused on every rank: {err}");
    }
}

/// A device fault: the same error everywhere, no hang. With static shards the last rank's
/// device traps (every rank has a shard); with dynamic chunks every rank's device traps,
/// since which ranks get a chunk is a race (a fast root may run them all).
fn device_fault(ranks: &World<'_>, tag: &str, every_rank: bool) {
    let last = ranks.size() - 1;
    let choice = if every_rank || ranks.rank() == last {
        eagle::testing::emulated_with_faults(FaultPlan {
            trap_launch: Some(1),
            ..FaultPlan::default()
        })
    } else {
        Target::Emulated
    };
    let fleet = eagle::deploy(
        Deploy::<Oscillator>::default(),
        Devices::Teams(vec![choice]),
    )
    .unwrap();
    let n = 40;
    let om = omega(n);
    let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
    let options = Options::new(10_000);
    let got = if ranks.is_root() {
        ranks.run_root(
            &fleet,
            &options,
            oscillator_planes(&om, &mut x, &mut v, &mut t),
        )
    } else {
        ranks.run_other(&fleet, &options)
    };
    let err = got.expect_err("a device fault must fail every rank");
    if !every_rank {
        assert_eq!(err.rank, last, "{err}");
    }
    // The faulting rank's message is the runtime's KernelTrap, word for word.
    let trap = eagle::Error::KernelTrap {
        message: String::new(),
        code: None,
    }
    .to_string();
    assert!(err.message.starts_with(trap.trim_end()), "{err}");
    if ranks.is_root() {
        println!("ok: {tag} device fault is every rank's error: {err}");
    }
}

/// Distributed planes: each rank builds and keeps its share of the Lorenz ensemble.
fn distributed(ranks: &World<'_>, n: usize) {
    let w = Workload::LorenzRk4F64;
    Distributed { ranks: *ranks }.with(w, w.ensemble::<LorenzRk4>(n).unwrap());
}

struct Distributed<'c> {
    ranks: World<'c>,
}

impl WithEnsemble for Distributed<'_> {
    type Out = ();
    fn with<K: Kernel>(self, w: Workload, e: Ensemble<K>)
    where
        K::Real: HostReal,
    {
        let n = e.len();
        let (rank, size) = (self.ranks.rank(), self.ranks.size());
        let mine = share(n, rank, size);
        // One process's results, for comparison (every rank computes them).
        let one = eagle::deploy(Deploy::<K>::default(), Target::Host(host())).unwrap();
        let mut reference = e.clone();
        reference.run(&one, Options::new(MAX_STEPS)).unwrap();
        let ins: Vec<Vec<K::Real>> = e.ins.iter().map(|p| p[mine.clone()].to_vec()).collect();
        let mut muts: Vec<Vec<K::Real>> = e.muts.iter().map(|p| p[mine.clone()].to_vec()).collect();
        let set = PlaneSet::from_roles::<K>(
            ins.iter().map(Vec::as_slice),
            &e.params,
            muts.iter_mut().map(Vec::as_mut_slice),
        );
        let run = self
            .ranks
            .run_distributed(&host_fleet::<K>(), &Options::new(MAX_STEPS), set)
            .unwrap();
        let want: Vec<Vec<K::Real>> = reference
            .muts
            .iter()
            .map(|p| p[mine.clone()].to_vec())
            .collect();
        assert_eq!(bits(&muts), bits(&want), "rank {rank}");
        assert_eq!(run.status.len(), mine.len());
        assert_eq!(run.merged.report.samples, n);
        if self.ranks.is_root() {
            println!(
                "ok: distributed {} n={n}: each rank's share equals one process's ({})",
                w.name(),
                run.merged.to_string().replace('\n', "; ")
            );
        }
    }
}

const CHILD: &str = "EAGLE_MPI_CHILD";

/// One `mpirun` at a time: the machine has few cores.
static MPIRUN: Mutex<()> = Mutex::new(());

/// `mpirun -np <np> <program> <args>` under `timeout` (seconds), as root if need be.
fn mpirun(np: usize, program: &str, args: &[&str], limit_s: u32) -> Output {
    let _one = MPIRUN.lock().unwrap_or_else(|e| e.into_inner());
    let version = Command::new("mpirun").arg("--version").output();
    assert!(
        version.as_ref().is_ok_and(|o| o.status.success()),
        "mpirun not found or not working ({version:?}): run scripts/setup.sh (Debian: apt-get \
         install openmpi-bin libopenmpi-dev libclang-dev)"
    );
    let out = Command::new("timeout")
        .args(["-k", "10", &limit_s.to_string(), "mpirun"])
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            &np.to_string(),
        ])
        .arg(program)
        .args(args)
        .env(CHILD, "1")
        .output()
        .expect("could not run timeout/mpirun");
    assert_ne!(
        out.status.code(),
        Some(124),
        "mpirun -np {np} {program} ran past {limit_s} s (a hang?):\n{}",
        text(&out)
    );
    out
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// The checks on `np` ranks: this binary's `child` test under mpirun.
fn run_checks(np: usize) {
    let me = std::env::current_exe().unwrap();
    let out = mpirun(
        np,
        me.to_str().unwrap(),
        &[
            "child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ],
        300,
    );
    let log = text(&out);
    assert!(
        out.status.success(),
        "the MPI checks failed on {np} ranks:\n{log}"
    );
    assert!(
        log.contains(&format!("checks passed on {np} ranks")),
        "no summary line:\n{log}"
    );
    // The root printed once per check; nothing printed twice.
    assert_eq!(log.matches("mpi_check:").count(), 1, "{log}");
    println!("{log}");
}

#[test]
fn two_ranks_equal_one_process() {
    run_checks(2);
}

#[test]
fn three_ranks_equal_one_process() {
    run_checks(3);
}

/// The lines of the seed's report (`launches: ...`, `done: ...`) in a page.
fn report_lines(page: &str) -> Vec<&str> {
    page.lines()
        .filter(|l| l.starts_with("launches: ") || l.starts_with("done: "))
        .collect()
}

#[test]
fn the_main_job_under_mpirun_prints_one_page_with_one_processs_launches() {
    let dir = tempfile::tempdir().unwrap();
    let figure = dir.path().join("p.svg");
    let figure = figure.to_str().unwrap();
    let exe = env!("CARGO_BIN_EXE_profile-your-run");
    let common = [
        "--n",
        "20000",
        "--threads",
        "1",
        "--lanes",
        "8",
        "--figure",
        figure,
    ];
    for max_steps in ["10000", "100"] {
        let alone = Command::new(exe)
            .args(common)
            .args(["--max-steps", max_steps])
            .env_remove(CHILD)
            .output()
            .unwrap();
        assert!(alone.status.success(), "{}", text(&alone));
        let alone = String::from_utf8_lossy(&alone.stdout).into_owned();
        for balance in ["static", "dynamic"] {
            let out = mpirun(
                2,
                exe,
                &[
                    &common[..],
                    &["--max-steps", max_steps, "--balance", balance],
                ]
                .concat(),
                120,
            );
            let page = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(out.status.success(), "{}", text(&out));
            // Once, from the root.
            assert_eq!(page.matches("running on host").count(), 1, "{page}");
            assert!(page.contains("ranks: 2, imbalance: "), "{page}");
            if balance == "static" {
                assert_eq!(report_lines(&page), report_lines(&alone), "{page}\n{alone}");
            } else {
                // Chunks run one after another on a rank: the same `done`.
                assert!(page.contains(report_lines(&alone)[1]), "{page}");
            }
        }
    }
}

#[test]
fn a_card_row_is_timed_across_ranks() {
    let exe = env!("CARGO_BIN_EXE_card");
    for balance in ["static", "dynamic"] {
        let out = mpirun(
            2,
            exe,
            &[
                "--workload",
                "lorenz-rk4-f64",
                "--n",
                "4096",
                "--threads",
                "1",
                "--lanes",
                "8",
                "--repeat",
                "1",
                "--balance",
                balance,
            ],
            120,
        );
        let page = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!(page.matches("# Performance card").count(), 1, "{page}");
        assert!(page.contains("ranks: 2, imbalance: "), "{page}");
        // Gathered results equal the baseline's: max rel diff 0.
        let row = page
            .lines()
            .find(|l| l.starts_with("| host | host |"))
            .unwrap_or_else(|| panic!("no row in:\n{page}"));
        assert!(row.trim_end().ends_with("| 0.0e0 |"), "{row}");
    }
}

/// Run by the tests above under mpirun (`EAGLE_MPI_CHILD=1`); does nothing otherwise.
#[test]
#[ignore = "the MPI program the other tests run under mpirun"]
fn child() {
    if std::env::var_os(CHILD).is_some() {
        checks();
    }
}

fn checks() {
    let universe = rsmpi::initialize().expect("MPI could not be initialized");
    let world = universe.world();
    let ranks = Ranks::new(&world);
    let size = ranks.size();
    let mut checks = 0;
    for (balance, tag) in [
        (Balance::Static, "static"),
        (Balance::Dynamic { chunk: 0 }, "dynamic"),
        (Balance::Dynamic { chunk: 7 }, "dynamic chunk=7"),
    ] {
        let r = ranks.balance(balance);
        // Three workloads, not every card workload: each kernel run on a team compiles
        // for every lane shape (minutes of CI build per kernel), and what ranks add does
        // not depend on the kernel's arithmetic. Fixed steps in f64 and f32 (every sample
        // ends in the same launch), and Kepler (lifetimes that differ, for the balance).
        let equal = Equal { ranks: &r, tag };
        let w = Workload::Oscillator;
        equal.with(w, w.ensemble::<Oscillator>(2000).unwrap());
        let w = Workload::LorenzRk4F32;
        equal.with(w, w.ensemble::<LorenzRk4F32>(1001).unwrap());
        let w = Workload::Kepler;
        equal.with(w, w.ensemble::<KeplerRk78>(150).unwrap());
        checks += 3;
        for n in [1, size - 1] {
            small(&r, n, None, &format!("{tag}: fewer samples than ranks"));
            checks += 1;
        }
        small(&r, 12, Some(9), &format!("{tag}: a NaN sample"));
        bad_plane(&r, &format!("{tag}: a bad plane on the root"));
        device_fault(&r, tag, balance != Balance::Static);
        checks += 3;
    }
    distributed(&ranks, 1001);
    distributed(&ranks, 1);
    checks += 2;
    // Every share empty: refused as one process refuses an empty ensemble.
    let fleet = host_fleet::<Oscillator>();
    let (mut x, mut v, mut t) = (vec![], vec![], vec![]);
    let err = ranks
        .run_distributed(
            &fleet,
            &Options::new(10),
            oscillator_planes(&[], &mut x, &mut v, &mut t),
        )
        .expect_err("an empty ensemble is refused");
    assert!(err.message.contains("empty"), "{err}");
    // A rank that runs another kernel: refused on every rank.
    let err = if ranks.is_root() {
        let om = omega(4);
        let (mut x, mut v, mut t) = (vec![1.0; 4], vec![0.0; 4], vec![0.0; 4]);
        ranks.run_root(
            &fleet,
            &Options::new(10),
            oscillator_planes(&om, &mut x, &mut v, &mut t),
        )
    } else {
        ranks.run_other(&host_fleet::<LorenzRk4>(), &Options::new(10))
    }
    .expect_err("a rank running another kernel is refused");
    assert_eq!(err.rank, 1, "{err}");
    checks += 2;
    if ranks.is_root() {
        println!("ok: every rank refuses an empty ensemble and a kernel that differs");
        println!("mpi_check: {checks} checks passed on {size} ranks");
    }
}
