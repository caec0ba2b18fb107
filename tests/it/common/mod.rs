//! Shared test helpers: ensembles and the plain scalar reference loop.
#![allow(dead_code)]

use eagle::hawk::Kernel;
use eagle::hawk::builtin::{OscillatorPlanes, oscillator};
use eagle::{HostConfig, Target};

/// A small deterministic generator (SplitMix64), so tests need no seed files.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// An oscillator ensemble whose samples start at different times, so they finish at
/// different steps (compaction and reorder have work to do).
#[derive(Clone, Debug, PartialEq)]
pub struct Ens {
    pub omega: Vec<f64>,
    pub x: Vec<f64>,
    pub v: Vec<f64>,
    pub t: Vec<f64>,
}

impl Ens {
    pub fn varied(n: usize, seed: u64) -> Self {
        let mut r = Rng(seed);
        Ens {
            omega: (0..n).map(|_| r.uniform(1.0, 3.0)).collect(),
            x: (0..n).map(|_| r.uniform(-1.0, 1.0)).collect(),
            v: (0..n).map(|_| r.uniform(-1.0, 1.0)).collect(),
            t: (0..n).map(|_| r.uniform(0.0, 0.95)).collect(),
        }
    }

    /// The seed's ensemble: omega = linspace(1, 3, n), x = 1, v = 0, t = 0.
    pub fn seed(n: usize) -> Self {
        Ens {
            omega: (0..n)
                .map(|i| 1.0 + 2.0 * i as f64 / (n.max(2) - 1) as f64)
                .collect(),
            x: vec![1.0; n],
            v: vec![0.0; n],
            t: vec![0.0; n],
        }
    }

    /// The oscillator's typed planes over this ensemble.
    pub fn planes(&mut self, t_end: f64, dt: f64) -> OscillatorPlanes<'_> {
        OscillatorPlanes {
            omega: &self.omega,
            t_end,
            dt,
            x: &mut self.x,
            v: &mut self.v,
            t: &mut self.t,
        }
    }

    /// Bits of every mutable plane, for exact comparison.
    pub fn bits(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .chain(&self.t)
            .map(|f| f.to_bits())
            .collect()
    }
}

/// The plain scalar reference: each sample on its own, one step at a time, until it is
/// terminated or `max_steps` steps. Returns the terminated flags.
pub fn reference(e: &mut Ens, t_end: f64, dt: f64, max_steps: u64) -> Vec<bool> {
    assert_eq!(eagle::hawk::builtin::Oscillator::NAME, "oscillator");
    (0..e.x.len())
        .map(|i| {
            let mut done = false;
            for _ in 0..max_steps {
                oscillator::<f64>(
                    e.omega[i],
                    t_end,
                    dt,
                    &mut done,
                    &mut e.x[i],
                    &mut e.v[i],
                    &mut e.t[i],
                );
                if done {
                    break;
                }
            }
            done
        })
        .collect()
}
pub mod device;
pub mod golden;
pub mod ptxas;
pub mod trajectory;

/// The host team with `lanes` samples per group and 2 threads.
pub fn host(lanes: usize) -> Target {
    Target::Host(HostConfig {
        lanes: Some(lanes),
        threads: Some(2),
        ..HostConfig::default()
    })
}
