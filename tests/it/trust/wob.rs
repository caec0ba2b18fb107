//! The wobble ensemble (samples that blow up or that the kernel flags failed) and its
//! plain scalar reference.

use crate::common;
use eagle::{Error, Status, Target};
use eagle_test_support::{Wobble, WobblePlanes, wobble};

/// Deploys the test kernel with its own module (the built-in one lacks it).
pub(crate) fn deploy_wobble(choice: Target) -> Result<eagle::Deployed<Wobble>, Error> {
    eagle_test_support::MODULE.deploy(Wobble, choice)
}

pub(crate) const DT: f64 = 0.01;

/// A wobble ensemble: `blow` samples overflow, `flag` samples are failed by the kernel.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wob {
    pub(crate) g: Vec<f64>,
    pub(crate) fail_at: Vec<f64>,
    pub(crate) x: Vec<f64>,
    pub(crate) v: Vec<f64>,
    pub(crate) t: Vec<f64>,
}

impl Wob {
    pub(crate) fn new(n: usize, seed: u64, blow: &[usize], flag: &[usize]) -> Self {
        let mut r = common::Rng(seed);
        let mut w = Wob {
            g: vec![1.0; n],
            fail_at: vec![f64::INFINITY; n],
            x: (0..n).map(|_| r.uniform(-1.0, 1.0)).collect(),
            v: (0..n).map(|_| r.uniform(-1.0, 1.0)).collect(),
            t: (0..n).map(|_| r.uniform(0.0, 0.95)).collect(),
        };
        for &i in blow {
            w.g[i] = 1e200;
        }
        for &i in flag {
            w.fail_at[i] = w.t[i] + 0.2;
        }
        w
    }
    pub(crate) fn planes(&mut self) -> WobblePlanes<'_> {
        WobblePlanes {
            g: &self.g,
            fail_at: &self.fail_at,
            dt: DT,
            x: &mut self.x,
            v: &mut self.v,
            t: &mut self.t,
        }
    }
    pub(crate) fn bits(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .chain(&self.t)
            .map(|f| f.to_bits())
            .collect()
    }
}

/// The straightforward reference: each sample alone, one step at a time; a step that
/// flags `failed` or leaves a NaN/infinite state is undone and the sample is `Failed`.
pub(crate) fn reference(w: &mut Wob, max_steps: u64) -> Vec<Status> {
    (0..w.x.len())
        .map(|i| {
            for _ in 0..max_steps {
                let old = (w.x[i], w.v[i], w.t[i]);
                let (mut done, mut failed) = (false, false);
                wobble::<f64>(
                    w.g[i],
                    w.fail_at[i],
                    DT,
                    &mut done,
                    &mut failed,
                    &mut w.x[i],
                    &mut w.v[i],
                    &mut w.t[i],
                );
                let finite = w.x[i].is_finite() && w.v[i].is_finite() && w.t[i].is_finite();
                if failed || !finite {
                    (w.x[i], w.v[i], w.t[i]) = old;
                    return Status::Failed;
                }
                if done {
                    return Status::Finished;
                }
            }
            Status::Capped
        })
        .collect()
}

/// Up to 2% of samples blow up and 2% are failed by the kernel, chosen by the seed.
pub(crate) fn ensemble(n: usize, seed: u64) -> Wob {
    let mut r = common::Rng(seed ^ 0xABCD);
    let pick = |r: &mut common::Rng| -> Vec<usize> {
        (0..n / 50)
            .map(|_| (r.next_u64() % n as u64) as usize)
            .collect()
    };
    let (blow, flag) = (pick(&mut r), pick(&mut r));
    Wob::new(n, seed, &blow, &flag)
}
