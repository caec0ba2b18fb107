//! What checking events costs when none fires: the Kepler orbit with RK4
//! (tests/kernels' `kepler_plain`) against the same orbit with one event that never fires
//! (`kepler_watched`: `r^2` falling through zero), on the host team, n = 16,384 samples,
//! 2,000 steps each. The two runs alternate, 15 rounds; the medians, their spread and the
//! ratio are printed. `cargo bench --bench events`.

use eagle::{HostConfig, Target};
use eagle_test_support::{
    KeplerPlain, KeplerPlainPlanes, KeplerWatched, KeplerWatchedPlanes, MODULE,
};
use std::time::Instant;

const N: usize = 16_384;
const DT: f64 = 1e-3;
const T_END: f64 = 2.0;
const ROUNDS: usize = 15;

/// Eccentricities 0.1..0.7, each orbit starting at periapsis (a = 1, mu = 1).
fn start() -> Vec<f64> {
    let mut s = vec![0.0; 4 * N];
    for i in 0..N {
        let e = 0.1 + 0.6 * i as f64 / (N - 1) as f64;
        s[i] = 1.0 - e;
        s[3 * N + i] = ((1.0 + e) / (1.0 - e)).sqrt();
    }
    s
}

fn median_and_spread(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    let target = || Target::Host(HostConfig::default());
    let plain = MODULE.deploy(KeplerPlain, target()).unwrap();
    let watched = MODULE.deploy(KeplerWatched, target()).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..=ROUNDS {
        let mut s = start();
        let mut t = vec![0.0; N];
        let clock = Instant::now();
        let mut r = eagle::until_done(
            &plain,
            1_000_000,
            KeplerPlainPlanes {
                dt: DT,
                t_end: T_END,
                s: eagle::components_mut::<f64, 4>(&mut s).unwrap(),
                t: &mut t,
            },
        )
        .unwrap();
        let rep = r.run().unwrap();
        assert!(rep.done());
        if round == ROUNDS {
            println!("plain: {:?}, steps {}", rep.lanes, rep.steps);
        }
        drop(r);
        let plain_s = clock.elapsed().as_secs_f64();
        let plain_end = s.clone();

        let mut s = start();
        let mut t = vec![0.0; N];
        let mut events = vec![0.0; N];
        let clock = Instant::now();
        let mut r = eagle::until_done(
            &watched,
            1_000_000,
            KeplerWatchedPlanes {
                dt: DT,
                t_end: T_END,
                event_tol: 1e-12,
                s: eagle::components_mut::<f64, 4>(&mut s).unwrap(),
                t: &mut t,
                events: &mut events,
            },
        )
        .unwrap();
        let rep = r.run().unwrap();
        assert!(rep.done());
        if round == ROUNDS {
            println!("watched: {:?}, steps {}", rep.lanes, rep.steps);
        }
        drop(r);
        let watched_s = clock.elapsed().as_secs_f64();
        assert!(events.iter().all(|&c| c == 0.0), "the event fired");
        let worst = plain_end
            .iter()
            .zip(&s)
            .map(|(p, w)| ((p - w) / p.abs().max(1e-300)).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-9, "the runs disagree: {worst}");
        // Round 0 warms up (tuning, page faults).
        if round > 0 {
            a.push(plain_s);
            b.push(watched_s);
        }
    }
    let (ma, lo_a, hi_a) = median_and_spread(a.clone());
    let (mb, lo_b, hi_b) = median_and_spread(b.clone());
    let mut ratios: Vec<f64> = a.iter().zip(&b).map(|(x, y)| y / x).collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "events never firing, Kepler RK4, n = {N}, {} steps, {ROUNDS} rounds, alternating:",
        (T_END / DT) as u64
    );
    println!(
        "  without events: median {:.1} ms (min {:.1}, max {:.1})",
        ma * 1e3,
        lo_a * 1e3,
        hi_a * 1e3
    );
    println!(
        "  with an event:  median {:.1} ms (min {:.1}, max {:.1})",
        mb * 1e3,
        lo_b * 1e3,
        hi_b * 1e3
    );
    println!(
        "  ratio (with / without), per round: median {:.3} (min {:.3}, max {:.3})",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1]
    );
}
