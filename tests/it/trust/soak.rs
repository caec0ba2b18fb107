//! The soak test: thousands of runs on one deployment, the resident set bounded.

use crate::trust::wob::{deploy_wobble, ensemble};
use eagle::{Arm, Compaction, HostConfig, Options, Target};

/// Resident set size in bytes, from /proc/self/statm.
fn rss() -> usize {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = s
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Thousands of back-to-back runs of varied shapes on one deployment per team; the
/// resident set must not grow beyond a small bound once warmed up.
#[test]
#[ignore = "a soak test (minutes): run with --ignored"]
fn soak() {
    for (choice, runs) in [
        (Target::Host(HostConfig::default()), 10_000usize),
        (Target::Emulated, 3000),
    ] {
        let deployed = deploy_wobble(choice.clone()).unwrap();
        let shape = |i: usize| (1 + (i * 7919) % 2000, 1 + (i as u64 * 31) % 150);
        let one = |i: usize| {
            let (n, max_steps) = shape(i);
            let mut w = ensemble(n, i as u64);
            let c = [Compaction::Off, Compaction::Auto, Compaction::Always][i % 3];
            let a = [Arm::Simulate, Arm::Graph, Arm::GraphWhile][i % 3];
            let options = Options::new(max_steps).compaction(c).arm(a);
            let mut r = eagle::until_done(&deployed, options, w.planes()).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            assert_eq!(rep.finished + rep.failed + rep.capped, n);
        };
        for i in 0..200 {
            one(i);
        }
        let before = rss();
        let t = std::time::Instant::now();
        for i in 0..runs {
            one(i);
        }
        let after = rss();
        let grew = after as f64 - before as f64;
        println!(
            "soak {choice:?}: {runs} runs in {:.1} s, RSS before {} KiB, after {} KiB, growth {} KiB",
            t.elapsed().as_secs_f64(),
            before / 1024,
            after / 1024,
            grew as i64 / 1024
        );
        assert!(grew < 8.0 * 1024.0 * 1024.0, "RSS grew by {grew} B");
    }
}
