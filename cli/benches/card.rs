//! The performance card: every workload x arm on the host team (device arms join when a GPU
//! team exists), timed by criterion, then written as `target/card/card.{md,json,svg}` and
//! `slots.svg` with criterion's medians.
//!
//! `EAGLE_CARD_N=4096 cargo bench -p eagle-cli --features card --bench card` shrinks every workload for a quick look;
//! `cargo bench -p eagle-cli --features card --bench card -- lorenz` runs only the matching workloads.

use criterion::Criterion;
use eagle::HostConfig;
use eagle_cli::card::{Arm, Card, Workload};
use std::path::PathBuf;
use std::time::Duration;

/// The workspace's target folder (`CARGO_TARGET_DIR` when set): benches run in their
/// package's folder, cli/.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    )
}

fn n_for(w: Workload) -> usize {
    std::env::var("EAGLE_CARD_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| w.default_n())
}

/// Criterion's median for `group/name`, in seconds.
fn median_s(group: &str, name: &str) -> Option<f64> {
    let home =
        std::env::var("CRITERION_HOME").map_or(target_dir().join("criterion"), PathBuf::from);
    let path = home.join(group).join(name).join("new/estimates.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some(json["median"]["point_estimate"].as_f64()? * 1e-9)
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut rows = Vec::new();
    for w in Workload::ALL {
        if !filter.is_empty() && !filter.iter().any(|f| w.name().contains(f.as_str())) {
            continue;
        }
        let n = n_for(w);
        let group = format!("card-{}", w.name());
        let mut cases = Vec::new();
        {
            let mut g = c.benchmark_group(&group);
            let gpu = eagle::device_props().is_ok();
            let arms = Arm::HOST
                .into_iter()
                .chain(Arm::DEVICE.into_iter().filter(|_| gpu));
            for arm in arms {
                let mut case = match w.case(arm, n, HostConfig::default()) {
                    Ok(c) => c,
                    Err(e) => {
                        eprintln!("card: skipping {} / {}: {e}", w.name(), arm.name());
                        continue;
                    }
                };
                g.bench_function(arm.name(), |b| {
                    b.iter_custom(|iters| (0..iters).map(|_| case.run_once()).sum())
                });
                cases.push((arm, case));
            }
            g.finish();
        }
        for (arm, case) in &cases {
            if let Some(s) = median_s(&group, arm.name()) {
                rows.push(case.row(s));
            }
        }
    }
    if rows.is_empty() {
        println!("card: nothing measured (filtered out?)");
        return;
    }
    let card = Card::new(rows);
    println!("\n{}", card.markdown());
    match card.write(&target_dir().join("card")) {
        Ok(paths) => {
            for p in paths {
                println!("card written: {}", p.display());
            }
        }
        Err(e) => eprintln!("could not write the card: {e}"),
    }
}
