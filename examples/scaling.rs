//! Quick look at host-team scaling: warm runs of the seed oscillator per thread count and lane width.
use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
use eagle::{HostConfig, Target};
use std::time::Instant;

fn main() {
    let n = 100_000;
    let omega: Vec<f64> = (0..n)
        .map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64)
        .collect();
    for threads in [1, 2] {
        for lanes in [4, 8, 12, 16] {
            let cfg = HostConfig {
                threads: Some(threads),
                lanes: Some(lanes),
                isa: None,
            };
            let d = eagle::deploy(Oscillator, Target::Host(cfg)).unwrap();
            let mut times = Vec::new();
            for _ in 0..9 {
                let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
                let p = OscillatorPlanes {
                    omega: &omega,
                    t_end: 1.0,
                    dt: 1e-3,
                    x: &mut x,
                    v: &mut v,
                    t: &mut t,
                };
                let mut r = eagle::until_done(&d, 10_000, p).unwrap();
                let t0 = Instant::now();
                r.run().unwrap();
                times.push(t0.elapsed().as_secs_f64() * 1e3);
            }
            times.sort_by(f64::total_cmp);
            println!(
                "threads {threads} lanes {lanes:2}: median {:.2} ms (min {:.2})",
                times[4], times[0]
            );
        }
    }
}
