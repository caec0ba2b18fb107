//! Runs one card workload on one arm from the command line and prints its row, so a run can
//! be profiled on its own (`nsys profile --stats=true target/release/card --workload ...`).
//! Built with `--features mpi`, `mpirun -np 2 target/release/card --workload ...` times the
//! row across the ranks (`--balance static|dynamic`); the root prints it, with the ranks'
//! imbalance.

use clap::Parser;
use eagle::HostConfig;
use eagle::shard::{Balance, MpiJob};
use eagle_cli::card::{Arm, Card, Case, Workload};
use std::process::ExitCode;

/// One line of the performance card.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Workload: oscillator, lorenz-rk4-f64, lorenz-rk4-f32 (each also contracted:
    /// oscillator-contracted, ..), lorenz-rk78-f64, lorenz-rk78-f32, lorenz-rk78-f64-1e-12, lorenz-vern9-f64-1e-12, kepler-rk78, pendulum-rk4-f64, pendulum-rk4-f32, lorenz96-rk4-f64,
    /// lorenz96-tsit5-f64, kuramoto-rk4-f64, neural-ode-rk4-f64, gbm-em-f64, ou-sra1-f64,
    /// robertson-rodas5p-f64 or hires-rodas5p-f64.
    #[arg(long)]
    workload: String,
    /// Arm: host, host-no-compaction, host-compact-always, host-reorder, rayon-scalar,
    /// device-simulate, device-graph, device-graph-while or device-graph-gather.
    #[arg(long, default_value = "host")]
    arm: String,
    /// Samples (default: the card's).
    #[arg(long)]
    n: Option<usize>,
    /// Host samples per SIMD group (default: auto, measured and cached).
    #[arg(long)]
    lanes: Option<usize>,
    /// Host instruction set: avx512, avx2 or portable (default: the CPU's, with AVX2 also
    /// tried by `lanes: auto` on an AVX-512 CPU).
    #[arg(long)]
    isa: Option<String>,
    /// Host threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Timed runs; the row holds the median.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Untimed runs before the timed ones, at least; then more until a run measures no
    /// launch shape (so that `lanes: auto`'s probes and checks are not timed; at most
    /// 100 in all). Give rows you compare the same value: on a shared machine a short
    /// run's speed can keep rising over its first runs.
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// Print the card as JSON (every field, active samples by launch included).
    #[arg(long)]
    json: bool,
    /// Samples sorted by lifetime (shortest first) instead of the workload's own order:
    /// long-lived samples together, as a parameter sweep gives them.
    #[arg(long)]
    sorted: bool,
    /// Under mpirun: static (one shard per rank) or dynamic (chunks from the root).
    #[arg(long, default_value = "static")]
    balance: String,
    /// Under mpirun with dynamic balance: samples per chunk (0: n / (8 x ranks)).
    #[arg(long, default_value_t = 0)]
    chunk: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let Some(w) = Workload::parse(&args.workload) else {
        eprintln!("error: unknown workload `{}`", args.workload);
        return ExitCode::FAILURE;
    };
    let Some(arm) = Arm::parse(&args.arm) else {
        eprintln!("error: unknown arm `{}`", args.arm);
        return ExitCode::FAILURE;
    };
    if args.repeat == 0 {
        eprintln!("error: --repeat must be at least 1");
        return ExitCode::FAILURE;
    }
    let isa = match args
        .isa
        .as_deref()
        .map(|n| (n, eagle::hawk_host::Isa::from_name(n)))
    {
        None => None,
        Some((_, Some(i))) => Some(i),
        Some((n, None)) => {
            eprintln!("error: unknown instruction set `{n}` (avx512, avx2 or portable)");
            return ExitCode::FAILURE;
        }
    };
    let host = HostConfig {
        lanes: args.lanes,
        threads: args.threads,
        isa,
    };
    let n = args.n.unwrap_or_else(|| w.default_n());
    let mut case = match w.case_in_order(arm, n, host, args.sorted) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: arm `{}`: {e}", arm.name());
            return ExitCode::FAILURE;
        }
    };
    let balance = match args.balance.as_str() {
        "static" => Balance::Static,
        "dynamic" => Balance::Dynamic { chunk: args.chunk },
        other => {
            eprintln!("error: unknown balance `{other}` (static or dynamic)");
            return ExitCode::FAILURE;
        }
    };
    // Started by mpirun (and built with MPI): the row is timed across the ranks.
    let job = match MpiJob::from_env() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let run = |case: &mut Box<dyn Case>| match &job {
        None => Ok(case.run_once()),
        Some(job) => case.run_once_on(job, balance),
    };
    let mut warmup_runs = 0;
    while warmup_runs < args.warmup
        || (warmup_runs > 0 && warmup_runs < MAX_WARMUP && still_tuning(&*case, &job))
    {
        if let Err(e) = run(&mut case) {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
        warmup_runs += 1;
    }
    let mut times = Vec::with_capacity(args.repeat);
    for _ in 0..args.repeat {
        match run(&mut case) {
            Ok(t) => times.push(t.as_secs_f64()),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if job.as_ref().is_some_and(|j| !j.is_root()) {
        return ExitCode::SUCCESS;
    }
    times.sort_by(f64::total_cmp);
    let mut row = case.row(times[times.len() / 2]);
    row.warmup_runs = Some(warmup_runs);
    let card = Card::new(vec![row]);
    if args.json {
        match serde_json::to_string_pretty(&card) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", card.markdown());
    }
    if let Some(m) = case.merged() {
        // The last timed run's ranks: one line for all, then each rank's share.
        println!(
            "ranks: {}, imbalance: {:.2}, times (ms): {}",
            m.parts.len(),
            m.imbalance(),
            times
                .iter()
                .map(|t| format!("{:.2}", t * 1e3))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for p in &m.parts {
            println!(
                "{}: {} samples, {:.2} ms busy, {} launches",
                p.label,
                p.samples,
                p.time_s * 1e3,
                p.report.launches
            );
        }
    }
    ExitCode::SUCCESS
}

/// Most warm-up runs the card binary waits for `lanes: auto` to settle (of a one-launch
/// workload, a probing process measures over 7 runs, a checking one over 8 to 10).
const MAX_WARMUP: usize = 100;

/// Whether the last run measured launch shapes, on any rank of the job (collective under
/// MPI: every rank asks after every warm-up run, so all warm up equally long).
fn still_tuning(case: &dyn Case, job: &Option<MpiJob>) -> bool {
    let tuning = case.tuning_launches() > 0;
    match job {
        None => tuning,
        Some(job) => job
            .agree(if tuning { Err(String::new()) } else { Ok(()) })
            .is_err(),
    }
}
