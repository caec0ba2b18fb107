//! Stiff problems (tests/kernels: `robertson` and its `f32` twin with Rodas5P,
//! `robertson23` with Rosenbrock23; the Jacobian by dual numbers; HIRES, Van der Pol and
//! the Oregonator are checked at the method level, `kernels-gpu/tests/methods_stiff.rs`): the final states of 16 samples against scipy's
//! Radau at rtol 1e-12 (`kernels-gpu/tests/data/stiff_reference.rs`, made by
//! `scripts/stiff_reference.py`), the same bits on every lane width and on the emulated
//! device, and a sample whose Jacobian is not finite failing alone.

use crate::common::host;
use eagle::{HostConfig, Options, Target};
use eagle_test_support::{
    MODULE, Robertson, Robertson23, Robertson23Planes, RobertsonF32, RobertsonF32Planes,
    RobertsonPlanes,
};

/// scipy's reference states (Robertson's here; the others at the method level).
#[allow(dead_code)]
mod reference {
    include!("../../kernels-gpu/tests/data/stiff_reference.rs");
}
use reference::{ROBERTSON, ROBERTSON_T_END};

/// An ensemble of an adaptive problem with `N` states and one or three per-sample inputs,
/// in `R` (`f64` or `f32`).
#[derive(Clone, PartialEq, Debug)]
struct Ensemble<R> {
    inputs: Vec<Vec<R>>,
    y: Vec<R>,
    t: Vec<R>,
    h: Vec<R>,
    accepted: Vec<R>,
    rejected: Vec<R>,
}

impl<R: Copy + Default + From<f32>> Ensemble<R> {
    fn new(inputs: Vec<Vec<R>>, y0: &[R]) -> Self {
        let n = inputs[0].len();
        Ensemble {
            inputs,
            y: y0.iter().flat_map(|v| std::iter::repeat_n(*v, n)).collect(),
            t: vec![R::default(); n],
            h: vec![R::from(1e-6); n],
            accepted: vec![R::default(); n],
            rejected: vec![R::default(); n],
        }
    }

    fn n(&self) -> usize {
        self.t.len()
    }

    /// Sample `i`'s state.
    fn state(&self, i: usize) -> Vec<R> {
        let n = self.n();
        self.y.iter().skip(i).step_by(n).copied().collect()
    }
}

impl Ensemble<f64> {
    fn bits(&self) -> Vec<u64> {
        [&self.y, &self.t, &self.h, &self.accepted, &self.rejected]
            .iter()
            .flat_map(|p| p.iter().map(|v| v.to_bits()))
            .collect()
    }
}

/// `|a - b| <= rel |b|` per component, else a message naming the sample and component.
fn check(what: &str, i: usize, got: &[f64], want: &[f64], rel: f64) {
    for (c, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * w.abs(),
            "{what} sample {i}, y{c}: {g:e} against Radau's {w:e} (relative {:.1e})",
            (g - w).abs() / w.abs()
        );
    }
}

macro_rules! run_problem {
    ($kernel:expr, $planes:ident, $e:expr, $target:expr, $t_end:expr, $tol:expr, $n:literal,
     { $($input:ident: $idx:literal),* }) => {{
        let d = MODULE.deploy($kernel, $target).unwrap();
        let e = &mut $e;
        let planes = $planes {
            $($input: &e.inputs[$idx],)*
            t_end: $t_end,
            rtol: $tol,
            atol: $tol,
            y: eagle::components_mut::<_, $n>(&mut e.y).unwrap(),
            t: &mut e.t,
            h: &mut e.h,
            accepted: &mut e.accepted,
            rejected: &mut e.rejected,
        };
        let mut r = eagle::until_done(&d, Options::new(10_000_000), planes).unwrap();
        let rep = r.run().unwrap();
        r.to_host().unwrap();
        rep
    }};
}

fn robertson(k: &[[f64; 3]]) -> Ensemble<f64> {
    let inputs = (0..3).map(|j| k.iter().map(|k| k[j]).collect()).collect();
    Ensemble::new(inputs, &[1.0, 0.0, 0.0])
}

fn run_robertson(e: &mut Ensemble<f64>, target: Target) -> eagle::RunReport {
    run_problem!(Robertson, RobertsonPlanes, *e, target, ROBERTSON_T_END, 1e-8, 3,
        { k1: 0, k2: 1, k3: 2 })
}

#[test]
fn robertson_matches_radau_on_the_host_team() {
    let mut r = robertson(&ROBERTSON.map(|s| s.0));
    let rep = run_robertson(&mut r, Target::Host(HostConfig::default()));
    assert!(rep.done() && rep.failed == 0, "{rep:?}");
    for (i, (_, want)) in ROBERTSON.iter().enumerate() {
        check("robertson", i, &r.state(i), want, 1e-6);
    }
}

#[test]
fn stiff_problems_give_the_same_bits_on_every_lane_width_and_the_emulated_device() {
    let k = ROBERTSON.map(|s| s.0);
    let mut want = robertson(&k);
    run_robertson(&mut want, host(1));
    for target in [host(2), host(4), host(8), Target::Emulated] {
        let mut got = robertson(&k);
        run_robertson(&mut got, target.clone());
        assert!(got.bits() == want.bits(), "robertson on {target:?}");
    }
    let mut want = robertson(&k);
    run_problem!(Robertson23, Robertson23Planes, want, host(1), 1e3, 1e-6, 3,
        { k1: 0, k2: 1, k3: 2 });
    for target in [host(8), Target::Emulated] {
        let mut got = robertson(&k);
        let rep = run_problem!(Robertson23, Robertson23Planes, got, target.clone(), 1e3, 1e-6,
            3, { k1: 0, k2: 1, k3: 2 });
        assert!(rep.done() && rep.failed == 0, "{rep:?}");
        assert!(got.bits() == want.bits(), "robertson23 on {target:?}");
    }
    // f32: the same bits between the host team and the emulated device.
    let runs: Vec<Ensemble<f32>> = [host(8), Target::Emulated]
        .into_iter()
        .map(|target| {
            let k: Vec<Vec<f32>> = (0..3)
                .map(|j| ROBERTSON.iter().map(|s| s.0[j] as f32).collect())
                .collect();
            let mut e = Ensemble::new(k, &[1.0f32, 0.0, 0.0]);
            let rep = run_problem!(RobertsonF32, RobertsonF32Planes, e, target, 1e3, 1e-4, 3,
                { k1: 0, k2: 1, k3: 2 });
            assert!(rep.done() && rep.failed == 0, "{rep:?}");
            e
        })
        .collect();
    assert!(runs[0] == runs[1], "robertson f32: host != emulated");
}

#[test]
fn a_sample_with_a_non_finite_jacobian_fails_alone() {
    let mut k = ROBERTSON.map(|s| s.0).to_vec();
    k[5][1] = f64::NAN;
    let mut e = robertson(&k);
    let before = e.clone();
    let rep = run_robertson(&mut e, host(8));
    assert_eq!(rep.failed, 1, "{rep:?}");
    // The failed sample keeps its state from before the failing step; the others finish.
    assert_eq!(e.state(5), before.state(5));
    for (i, (_, want)) in ROBERTSON.iter().enumerate().filter(|(i, _)| *i != 5) {
        check("robertson", i, &e.state(i), want, 1e-6);
    }
}
