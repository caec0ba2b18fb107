//! "Profile your run": the seed page as a program. Runs the oscillator ensemble on the best
//! team available, prints where the time went and the run report, and draws the figure.
//!
//! `cargo run --release` gives the seed's run; `-- --max-steps 100` its "Try this". Built
//! with `--features mpi`, `mpirun -np 2 target/release/profile-your-run` runs the ensemble
//! across the ranks and the root prints the page once, with a `ranks: 2, imbalance: x`
//! line.

use clap::Parser;
use eagle::hawk::Kernel;
use eagle::hawk::Steps;
use eagle::hawk::builtin::{Oscillator, OscillatorContracted, OscillatorPlanes};
use eagle::shard::{Balance, Fleet, MpiJob};
use eagle::{Arm, Compaction, Deployed, DeviceCompaction, HostConfig, Options, Target};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Three numbers tell you where a run's time went: build, run, transfer.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Samples (default: 100,000 on the host, 1,000,000 on a GPU).
    #[arg(long)]
    n: Option<usize>,
    /// Stop after this many steps.
    #[arg(long, default_value_t = 10_000)]
    max_steps: u64,
    /// Team: best, host or device.
    #[arg(long, default_value = "best")]
    team: String,
    /// Steps per launch: auto or a fixed k.
    #[arg(long, default_value = "auto")]
    steps: String,
    /// Host threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Host samples per SIMD group (1, 2, 4, 8, 12, 16, 32 or 64; default: auto, chosen by
    /// measuring and remembered in the build cache).
    #[arg(long)]
    lanes: Option<usize>,
    /// Device arm: simulate, graph or graph_while.
    #[arg(long, default_value = "simulate")]
    arm: String,
    /// Compaction policy: auto, always or off.
    #[arg(long, default_value = "auto")]
    compaction: String,
    /// Device compaction strategy: index_list or gather.
    #[arg(long, default_value = "index_list")]
    strategy: String,
    /// Runs of the same runner (later runs replay graphs: build 0).
    #[arg(long, default_value_t = 1)]
    runs: u32,
    /// Under mpirun: how ranks share the samples, static (one shard each) or dynamic
    /// (chunks from the root).
    #[arg(long, default_value = "static")]
    balance: String,
    /// Under mpirun with dynamic balance: samples per chunk (0: n / (8 x ranks)).
    #[arg(long, default_value_t = 0)]
    chunk: usize,
    /// Where to write the build / run / transfer figure (SVG).
    #[arg(long, default_value = "target/profile-your-run.svg")]
    figure: PathBuf,
    /// Run the contracted oscillator (`#[kernel(contract)]`: its multiply-adds fused, one
    /// rounding each; the same bits on every team, not the plain kernel's).
    #[arg(long)]
    contract: bool,
}

impl Args {
    /// What the page's first line says of the kernel: `" (contracted oscillator)"` with
    /// `--contract`, else nothing.
    fn kernel_note(&self) -> &'static str {
        if self.contract {
            " (contracted oscillator)"
        } else {
            ""
        }
    }
}

/// How the ensemble runs, from the command line.
struct Setup {
    choice: Target,
    steps: Steps,
    arm: Arm,
    compaction: Compaction,
    strategy: DeviceCompaction,
    balance: Balance,
}

impl Setup {
    /// The run's options: these choices and `max_steps`.
    fn options(&self, max_steps: u64) -> Options {
        Options::new(max_steps)
            .steps(self.steps)
            .arm(self.arm)
            .compaction(self.compaction)
            .device_compaction(self.strategy)
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let host = HostConfig {
        threads: args.threads,
        lanes: args.lanes,
        ..HostConfig::default()
    };
    let custom_host = args.threads.is_some() || args.lanes.is_some();
    let choice = match args.team.as_str() {
        "best" if custom_host => Target::Host(host),
        "best" => Target::Best,
        "host" => Target::Host(host),
        "device" => Target::Device(0),
        "emulated" => Target::Emulated,
        other => {
            return Err(
                format!("unknown team `{other}` (use best, host, device or emulated)").into(),
            );
        }
    };
    let arm = match args.arm.as_str() {
        "simulate" => Arm::Simulate,
        "graph" => Arm::Graph,
        "graph_while" => Arm::GraphWhile,
        other => return Err(format!("unknown arm `{other}`").into()),
    };
    let compaction = match args.compaction.as_str() {
        "auto" => Compaction::Auto,
        "always" => Compaction::Always,
        "off" => Compaction::Off,
        other => return Err(format!("unknown compaction `{other}`").into()),
    };
    let strategy = match args.strategy.as_str() {
        "index_list" => DeviceCompaction::IndexList,
        "gather" => DeviceCompaction::Gather,
        other => return Err(format!("unknown strategy `{other}`").into()),
    };
    let steps = match args.steps.as_str() {
        "auto" => Steps::Auto,
        k => Steps::Fixed(
            k.parse()
                .map_err(|_| format!("--steps must be `auto` or a number, got `{k}`"))?,
        ),
    };
    let balance = match args.balance.as_str() {
        "static" => Balance::Static,
        "dynamic" => Balance::Dynamic { chunk: args.chunk },
        other => return Err(format!("unknown balance `{other}` (static or dynamic)").into()),
    };
    let setup = Setup {
        choice,
        steps,
        arm,
        compaction,
        strategy,
        balance,
    };
    if args.contract {
        run_kernel::<OscillatorContracted>(&args, setup)
    } else {
        run_kernel::<Oscillator>(&args, setup)
    }
}

/// The page with kernel `K` (the oscillator, plain or contracted).
fn run_kernel<K: Kernel<Real = f64> + Default>(
    args: &Args,
    setup: Setup,
) -> Result<(), Box<dyn std::error::Error>> {
    // Started by mpirun (and built with MPI): every rank runs its share; the root prints.
    if let Some(job) = MpiJob::from_env()? {
        return on_ranks::<K>(&job, args, setup);
    }
    let options = setup
        .options(args.max_steps)
        // The bar goes to stderr, and only when a person is watching.
        .progress(std::io::stdout().is_terminal());
    let deployed = eagle::deploy(K::default(), setup.choice)?;
    let team = deployed.team().kind();
    let mut seed = Seed::new(args.n, team)?;
    println!("running on {team}{}", args.kernel_note());

    let n = seed.len();
    let planes = seed.planes();
    let mut runner = eagle::until_done(&deployed, options, planes)?;

    let mut t0 = Instant::now();
    let mut report = runner.run()?;
    // The team's start-up (module JIT or load) is reported by the runner's first run.
    let startup = (report.startup.map_or("", |s| s.name()), report.startup_s);
    let mut notes = report.notes.clone();
    for _ in 1..args.runs.max(1) {
        println!(
            "earlier run: build: {:.2} ms, run: {:.2} ms",
            report.build_s * 1e3,
            (t0.elapsed().as_secs_f64() - report.build_s).max(0.0) * 1e3
        );
        t0 = Instant::now();
        report = runner.run()?;
    }
    let t1 = Instant::now();
    runner.to_host()?; // the only step that moves data home
    let t2 = Instant::now();

    let build_s = report.build_s;
    let run_s = ((t1 - t0).as_secs_f64() - build_s).max(0.0);
    let transfer_s = (t2 - t1).as_secs_f64();
    println!(
        "build: {:.2} ms, run: {:.2} ms, transfer: {:.2} ms",
        build_s * 1e3,
        run_s * 1e3,
        transfer_s * 1e3
    );
    if team == eagle::TeamKind::Device {
        println!("start-up: {} {:.2} ms", startup.0, startup.1 * 1e3);
    }
    println!("{report}");
    print_lanes(&report, &deployed, "threads");
    if team == eagle::TeamKind::Device {
        println!(
            "arm: {}, compaction: {} ({} compactions), graphs built: {}, replays: {}",
            report.arm.map_or("", |a| a.name()),
            report.compaction_strategy.map_or("", |c| c.name()),
            report.compactions,
            report.graphs_built,
            report.graph_replays
        );
    }
    // The first run's notes (start-up) and the last run's, each once.
    for note in &report.notes {
        if !notes.contains(note) {
            notes.push(note.clone());
        }
    }
    for note in &notes {
        println!("note: {note}");
    }

    figure(args, n, build_s, run_s, transfer_s)
}

fn figure(
    args: &Args,
    n: usize,
    build_s: f64,
    run_s: f64,
    transfer_s: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(dir) = args.figure.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let title = format!(
        "n={} -- on the machine that built this page",
        group_thousands(n)
    );
    eagle_cli::figure::phases_svg(&args.figure, &title, build_s, run_s, transfer_s)?;
    println!("figure: {}", args.figure.display());
    Ok(())
}

/// The main job under mpirun: each rank deploys on its team, the root holds the ensemble,
/// the ranks run their shares, and the root prints the page once: the same `launches`,
/// `steps`, `launches_by_k` and `done` as one process (every oscillator sample ends in the
/// same launch), then `ranks: N, imbalance: x`. "transfer" is the root's scatter and
/// gather of the planes.
fn on_ranks<K: Kernel<Real = f64> + Default>(
    job: &MpiJob,
    args: &Args,
    setup: Setup,
) -> Result<(), Box<dyn std::error::Error>> {
    let (options, balance) = (setup.options(args.max_steps), setup.balance);
    // A rank that cannot deploy says so to every rank (no rank waits for it).
    let deployed =
        job.agree(eagle::deploy(K::default(), setup.choice).map_err(|e| e.to_string()))?;
    let team = deployed.team().kind();
    let fleet = Fleet::from_deployed(vec![deployed.clone()]);
    if !job.is_root() {
        job.run_other(&fleet, &options, balance)?;
        return Ok(());
    }
    let mut seed = Seed::new(args.n, team)?;
    println!("running on {team}{}", args.kernel_note());
    let n = seed.len();
    let planes = seed.planes();
    let t0 = Instant::now();
    let run = job.run_root(&fleet, &options, balance, planes)?;
    let total_s = t0.elapsed().as_secs_f64();
    let report = &run.merged.report;
    let build_s = report.build_s;
    let transfer_s = run.merged.comm_s;
    let run_s = (total_s - build_s - transfer_s).max(0.0);
    println!(
        "build: {:.2} ms, run: {:.2} ms, transfer: {:.2} ms",
        build_s * 1e3,
        run_s * 1e3,
        transfer_s * 1e3
    );
    println!("{}", run.merged);
    print_lanes(report, &deployed, "threads per rank");
    for p in &run.merged.parts {
        println!(
            "{}: {} samples, {:.2} ms, {} launches",
            p.label,
            p.samples,
            p.time_s * 1e3,
            p.report.launches
        );
    }
    for note in &report.notes {
        println!("note: {note}");
    }
    figure(args, n, build_s, run_s, transfer_s)
}

/// The page's ensemble: `n` oscillators (default 1,000,000 on a device, 100,000 on the
/// host), omega evenly in [1, 3], x = 1, v = 0, t = 0.
struct Seed {
    omega: Vec<f64>,
    x: Vec<f64>,
    v: Vec<f64>,
    t: Vec<f64>,
}

impl Seed {
    /// Its planes, or (when memory cannot hold them) an error naming the sample count and
    /// the bytes asked for, before anything runs.
    fn new(n: Option<usize>, team: eagle::TeamKind) -> Result<Seed, String> {
        let n = n.unwrap_or(if team == eagle::TeamKind::Device {
            1_000_000
        } else {
            100_000
        });
        let mut omega = filled(n, 0.0)?;
        for (i, w) in omega.iter_mut().enumerate() {
            *w = 1.0 + 2.0 * i as f64 / (n.max(2) - 1) as f64;
        }
        Ok(Seed {
            omega,
            x: filled(n, 1.0)?,
            v: filled(n, 0.0)?,
            t: filled(n, 0.0)?,
        })
    }

    fn len(&self) -> usize {
        self.omega.len()
    }

    /// Its planes, with t_end = 1 and dt = 1e-3.
    fn planes(&mut self) -> OscillatorPlanes<'_> {
        OscillatorPlanes {
            omega: &self.omega,
            t_end: 1.0,
            dt: 1e-3,
            x: &mut self.x,
            v: &mut self.v,
            t: &mut self.t,
        }
    }
}

/// `n` copies of `value`, written now. (`vec![0.0; n]` leaves pages the OS has not backed
/// yet, and the run would pay for them when it writes the results home: on a 2-core AMD
/// EPYC virtual machine that put the main job's single run at 8.3 ms median instead of 6.0.)
/// When memory cannot hold them: an error naming `n` and the bytes, never an abort.
fn filled(n: usize, value: f64) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|e| {
        let gb = n as f64 * 8.0 / 1e9;
        format!(
            "--n {}: the ensemble's 4 planes need {:.1} GB ({gb:.1} GB each), and memory \
             cannot hold one ({e})",
            group_thousands(n),
            4.0 * gb
        )
    })?;
    v.resize(n, value);
    Ok(v)
}

/// The `lanes:` line: width, ISA, where the width came from (and how many of the run's
/// launches measured shapes, when any did), and the host threads (`per` names them:
/// "threads", "threads per rank").
fn print_lanes<K: Kernel>(report: &eagle::RunReport, deployed: &Deployed<K>, per: &str) {
    if let Some(l) = report.lanes {
        let threads = match deployed.team() {
            eagle::Team::Host(h) => h.threads(),
            _ => 0,
        };
        let measured = match report.tuning_launches {
            0 => String::new(),
            m => format!("; {m} of {} launches measured", report.launches),
        };
        println!(
            "lanes: {} x f64 on {} ({}{measured}), {threads} {per}",
            l.shape.lanes,
            l.shape.isa.name(),
            l.source.name(),
        );
    }
}

/// `1000000` -> `1,000,000`, as the seed's figure title prints it.
fn group_thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
