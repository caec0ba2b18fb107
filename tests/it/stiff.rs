//! Stiff problems (tests/kernels: `robertson` and its `f32` twin with Rodas5P,
//! `robertson23` with Rosenbrock23, `van_der_pol` and `oregonator` with Rodas5P; the
//! built-in `HiresRodas5p`; each Jacobian by dual numbers): the final states of 16 samples
//! against scipy's Radau at rtol 1e-12 (`kernels-gpu/tests/data/stiff_reference.rs`, made
//! by `scripts/stiff_reference.py`), the same bits on every lane width and on the emulated
//! device, a sample whose Jacobian is not finite failing alone, and Rodas5P with an event
//! (`robertson_half`) against the event times Radau locates.

use crate::common::host;
use eagle::{HostConfig, Options, Target};
use eagle_test_support::{
    MODULE, Oregonator, OregonatorPlanes, Robertson, Robertson23, Robertson23Planes, RobertsonF32,
    RobertsonF32Planes, RobertsonPlanes, VanDerPol, VanDerPolPlanes,
};

/// scipy's reference states (Robertson's here; the others at the method level).
#[allow(dead_code)]
mod reference {
    include!("../../kernels-gpu/tests/data/stiff_reference.rs");
}
use reference::{
    HIRES, HIRES_T_END, OREGONATOR, OREGONATOR_T_END, ROBERTSON, ROBERTSON_T_END, VAN_DER_POL,
    VAN_DER_POL_T_END,
};

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
     { $($input:ident: $idx:literal),* }) => {
        run_problem!(MODULE.deploy($kernel, $target).unwrap(), $planes, $e, $t_end, $tol, $n,
            { $($input: $idx),* })
    };
    ($deployed:expr, $planes:ident, $e:expr, $t_end:expr, $tol:expr, $n:literal,
     { $($input:ident: $idx:literal),* }) => {{
        let d = $deployed;
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

/// `robertson` (every host loop) gives the same bits at every lane width of the
/// instruction set and on the emulated device. `robertson23` has the portable loops alone
/// (`host_loops = "portable"`): each of them, a width it is not compiled for (12 runs the
/// 4-lane loop), `lanes: auto` (the 8-lane loop, nothing measured) and the emulated device
/// give the same bits, and the report says which loop ran.
#[test]
fn stiff_problems_give_the_same_bits_on_every_lane_width_and_the_emulated_device() {
    use eagle::hawk_host::{Isa, Shape, ShapeChoice, ShapeSource};
    let k = ROBERTSON.map(|s| s.0);
    let mut want = robertson(&k);
    run_robertson(&mut want, host(1));
    crate::common::golden::same_bits_as_before("robertson_rodas5p", want.bits());
    let widths = eagle::Isa::detect().lane_widths().iter().map(|&w| host(w));
    for target in widths.chain([Target::Emulated]) {
        let mut got = robertson(&k);
        run_robertson(&mut got, target.clone());
        assert!(got.bits() == want.bits(), "robertson on {target:?}");
    }
    let mut want = robertson(&k);
    run_problem!(Robertson23, Robertson23Planes, want, host(1), 1e3, 1e-6, 3,
        { k1: 0, k2: 1, k3: 2 });
    crate::common::golden::same_bits_as_before("robertson_rosenbrock23", want.bits());
    let auto = Target::Host(HostConfig::default());
    for (target, lanes) in [
        (host(2), 2),
        (host(4), 4),
        (host(8), 8),
        (host(12), 4),
        (auto, 8),
        (Target::Emulated, 0),
    ] {
        let mut got = robertson(&k);
        let rep = run_problem!(Robertson23, Robertson23Planes, got, target.clone(), 1e3, 1e-6,
            3, { k1: 0, k2: 1, k3: 2 });
        assert!(rep.done() && rep.failed == 0, "{rep:?}");
        assert!(got.bits() == want.bits(), "robertson23 on {target:?}");
        if lanes > 0 {
            let shape = Shape {
                isa: Isa::Portable,
                lanes,
            };
            let ran = ShapeChoice {
                shape,
                source: ShapeSource::Kernel,
            };
            assert_eq!(rep.lanes, Some(ran), "{target:?}");
            assert_eq!(rep.tuning_launches, 0);
        }
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
    let f32_bits = [
        &runs[0].y,
        &runs[0].t,
        &runs[0].h,
        &runs[0].accepted,
        &runs[0].rejected,
    ]
    .into_iter()
    .flat_map(|p| p.iter().map(|v| v.to_bits() as u64));
    crate::common::golden::same_bits_as_before("robertson_rodas5p_f32", f32_bits);
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

/// One input per sample (the reference's first column) and the start state `y0`.
fn one_input<const N: usize>(reference: &[(f64, [f64; N])], y0: &[f64]) -> Ensemble<f64> {
    Ensemble::new(vec![reference.iter().map(|s| s.0).collect()], y0)
}

/// HIRES (the built-in kernel with its portable loops: `PortableLoops`), Van der Pol
/// (mu 900 to 1100) and the Oregonator, Rodas5P at rtol = atol = 1e-8: within 1e-6 of
/// Radau on the host team, and the same bits on the emulated device.
#[test]
fn hires_van_der_pol_and_the_oregonator_match_radau_on_both_teams() {
    use eagle::hawk::PortableLoops;
    use eagle::hawk::builtin::{HiresRodas5p, HiresRodas5pPlanes};
    let hires_y0 = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057];
    let runs: Vec<_> = [host(8), Target::Emulated]
        .into_iter()
        .map(|target| {
            let mut h = one_input(&HIRES, &hires_y0);
            let d = eagle::deploy(PortableLoops(HiresRodas5p), target.clone()).unwrap();
            let rep = run_problem!(d, HiresRodas5pPlanes, h, HIRES_T_END, 1e-8, 8, { p: 0 });
            assert!(rep.done() && rep.failed == 0, "hires: {rep:?}");
            let mut v = one_input(&VAN_DER_POL, &[2.0, 0.0]);
            let rep = run_problem!(VanDerPol, VanDerPolPlanes, v, target.clone(),
                VAN_DER_POL_T_END, 1e-8, 2, { mu: 0 });
            assert!(rep.done() && rep.failed == 0, "van der pol: {rep:?}");
            let mut o = one_input(&OREGONATOR, &[1.0, 2.0, 3.0]);
            let rep = run_problem!(Oregonator, OregonatorPlanes, o, target, OREGONATOR_T_END,
                1e-8, 3, { s: 0 });
            assert!(rep.done() && rep.failed == 0, "oregonator: {rep:?}");
            [h, v, o]
        })
        .collect();
    let [h, v, o] = &runs[0];
    let all = [h, v, o].into_iter().flat_map(|e| e.bits());
    crate::common::golden::same_bits_as_before("hires_van_der_pol_oregonator", all);
    for i in 0..16 {
        check("hires", i, &h.state(i), &HIRES[i].1, 1e-6);
        check("van der pol", i, &v.state(i), &VAN_DER_POL[i].1, 1e-6);
        check("oregonator", i, &o.state(i), &OREGONATOR[i].1, 1e-6);
    }
    for (host, emulated) in runs[0].iter().zip(&runs[1]) {
        assert!(
            host.bits() == emulated.bits(),
            "host team != emulated device"
        );
    }
}

/// scipy's located events for Robertson (`kernels-gpu/tests/data/robertson_event_reference.rs`,
/// made by `scripts/robertson_event_reference.py`).
mod event_reference {
    include!("../../kernels-gpu/tests/data/robertson_event_reference.rs");
}

/// A stiff method with an event: Rodas5P on Robertson, each sample terminated where `y1`
/// falls to 0.5 (`robertson_half`). The located time within 1e-8 relative of Radau's (at
/// rtol 1e-12), the state there on the level, and the same bits on the host team and the
/// emulated device.
#[test]
fn rodas5p_locates_an_event_within_1e_8_of_radau_on_both_teams() {
    use eagle_test_support::{RobertsonHalf, RobertsonHalfPlanes};
    use event_reference::{ROBERTSON_EVENT, ROBERTSON_EVENT_LEVEL};
    let k = ROBERTSON_EVENT.map(|s| s.0);
    let runs: Vec<(Ensemble<f64>, Vec<f64>)> = [host(4), Target::Emulated]
        .into_iter()
        .map(|target| {
            let mut e = robertson(&k);
            let mut events = vec![0.0; e.n()];
            let d = MODULE.deploy(RobertsonHalf, target).unwrap();
            let planes = RobertsonHalfPlanes {
                k1: &e.inputs[0],
                k2: &e.inputs[1],
                k3: &e.inputs[2],
                t_end: 1e5,
                rtol: 1e-10,
                atol: 1e-14,
                event_tol: 1e-10,
                y: eagle::components_mut::<_, 3>(&mut e.y).unwrap(),
                t: &mut e.t,
                h: &mut e.h,
                accepted: &mut e.accepted,
                rejected: &mut e.rejected,
                events: &mut events,
            };
            let mut r = eagle::until_done(&d, Options::new(10_000_000), planes).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            drop(r);
            assert!(rep.done() && rep.failed == 0, "{rep:?}");
            (e, events)
        })
        .collect();
    let (e, events) = &runs[0];
    let mut worst = 0.0f64;
    for (i, (_, t_event, y_event)) in ROBERTSON_EVENT.iter().enumerate() {
        assert_eq!(events[i], 1.0, "sample {i} fired once");
        let rel = (e.t[i] - t_event).abs() / t_event;
        worst = worst.max(rel);
        assert!(
            rel < 1e-8,
            "sample {i}: event at {} vs Radau {t_event} ({rel:.1e})",
            e.t[i]
        );
        let y = e.state(i);
        assert!(
            (y[0] - ROBERTSON_EVENT_LEVEL).abs() < 1e-8,
            "sample {i}: y1 = {}",
            y[0]
        );
        check("robertson event state", i, &y, y_event, 1e-6);
    }
    eprintln!("rodas5p event times against Radau: {worst:.1e} max relative");
    assert!(
        runs[0].0.bits() == runs[1].0.bits(),
        "host team != emulated device"
    );
    assert!(
        runs[0].1 == runs[1].1,
        "event counts: host team != emulated device"
    );
}
