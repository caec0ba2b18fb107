//! Runs one card workload on one arm from the command line and prints its row, so a run can
//! be profiled on its own (`nsys profile --stats=true target/release/card --workload ...`).

use clap::Parser;
use eagle::HostConfig;
use eagle_cli::card::{Arm, Card, Workload};
use std::process::ExitCode;

/// One line of the performance card.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Workload: oscillator, lorenz-rk4-f64, lorenz-rk4-f32, lorenz-rk78-f64,
    /// lorenz-rk78-f32 or kepler-rk78.
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
    /// Print the card as JSON (every field, active samples by launch included).
    #[arg(long)]
    json: bool,
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
    let mut case = match w.case(arm, args.n.unwrap_or_else(|| w.default_n()), host) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: arm `{}`: {e}", arm.name());
            return ExitCode::FAILURE;
        }
    };
    let mut times: Vec<f64> = (0..args.repeat)
        .map(|_| case.run_once().as_secs_f64())
        .collect();
    times.sort_by(f64::total_cmp);
    let card = Card::new(vec![case.row(times[times.len() / 2])]);
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
    ExitCode::SUCCESS
}
