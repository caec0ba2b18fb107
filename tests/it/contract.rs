//! Contracted kernels (`#[kernel(contract)]`, `#[problem(.., contract)]`): the fused
//! operations the docs promise (plain Rust's correctly rounded `mul_add` in the same places
//! gives the same bits), the same bits at every host lane width and on the emulated device,
//! and not the plain kernel's bits (one rounding fewer per fused pair), though close to them.

use crate::common::{Ens, host};
use eagle::hawk::builtin::{
    LorenzRk4, LorenzRk4Contracted, LorenzRk4F32, LorenzRk4F32Contracted, LorenzRk4F32Planes,
    LorenzRk4Planes, Oscillator, OscillatorContracted,
};
use eagle::hawk::{Kernel, PortableLoops};
use eagle::{Options, Target};
use eagle_test_support::{MODULE, SpringContracted, SpringContractedPlanes};

/// Every host lane width of this CPU's instruction set, then the emulated device.
fn targets() -> Vec<Target> {
    let widths = eagle::Isa::detect().lane_widths().iter().map(|&w| host(w));
    widths.chain([Target::Emulated]).collect()
}

/// The oscillator ensemble `e` run to t = 1 by kernel `K` on `target`.
fn oscillator<K: Kernel<Real = f64> + Default>(e: &mut Ens, target: Target) {
    let deployed = eagle::deploy(K::default(), target).unwrap();
    let mut runner =
        eagle::until_done(&deployed, Options::new(10_000), e.planes(1.0, 1e-3)).unwrap();
    assert!(runner.run().unwrap().done());
    runner.to_host().unwrap();
}

/// The oscillator's step in plain Rust, `fused` as the contracted kernel promises
/// (`x0 + dt * v0` and `v0 - dt * omega * omega * x0` each one `mul_add`, the second
/// fusing the last product, `(dt * omega * omega) * x0`, with `v0`; `t += dt` as it was)
/// or not (the plain kernel: every product rounded).
fn oscillator_in_rust(e: &mut Ens, dt: f64, fused: bool) {
    for i in 0..e.x.len() {
        loop {
            let (x0, v0, w) = (e.x[i], e.v[i], e.omega[i]);
            if fused {
                e.x[i] = dt.mul_add(v0, x0);
                e.v[i] = (-(dt * w * w)).mul_add(x0, v0);
            } else {
                e.x[i] = x0 + dt * v0;
                e.v[i] = v0 - dt * w * w * x0;
            }
            e.t[i] += dt;
            if e.t[i] >= 1.0 {
                break;
            }
        }
    }
}

/// The largest relative difference between two ensembles' states.
fn max_rel_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a - b).abs() / b.abs().max(1e-300))
        .fold(0.0, f64::max)
}

#[test]
fn the_contracted_oscillator_fuses_as_documented_on_every_team() {
    let start = Ens::varied(203, 7);
    let mut want = start.clone();
    oscillator_in_rust(&mut want, 1e-3, true);
    for target in targets() {
        let mut got = start.clone();
        oscillator::<OscillatorContracted>(&mut got, target.clone());
        assert!(
            got.bits() == want.bits(),
            "contracted oscillator on {target:?}"
        );
    }
    // The plain kernel rounds each product apart, as it always did: other bits, within a
    // few roundings a step.
    let mut plain = start.clone();
    oscillator::<Oscillator>(&mut plain, host(1));
    let mut unfused = start.clone();
    oscillator_in_rust(&mut unfused, 1e-3, false);
    assert!(plain.bits() == unfused.bits());
    assert!(plain.bits() != want.bits());
    let d = max_rel_diff(&plain.x, &want.x).max(max_rel_diff(&plain.v, &want.v));
    assert!(d > 0.0 && d < 1e-11, "plain against contracted: {d:e}");
    assert_eq!(plain.t, want.t, "t += dt is not a multiply-add");
}

/// Lorenz's card ensemble (rho from 0 to 21) at RK4, dt = 1e-3 to t = 1, as `R`.
macro_rules! lorenz {
    ($kernel:ty, $planes:ident, $real:ty, $n:expr, $target:expr) => {{
        let n: usize = $n;
        let rho: Vec<$real> = (0..n)
            .map(|i| (21.0 * i as f64 / (n - 1) as f64) as $real)
            .collect();
        let (mut x, mut y, mut z, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let planes = $planes {
            rho: &rho,
            sigma: 10.0,
            beta: (8.0 / 3.0) as $real,
            dt: 1e-3,
            t_end: 1.0,
            x: &mut x,
            y: &mut y,
            z: &mut z,
            t: &mut t,
        };
        let deployed = eagle::deploy(<$kernel>::default(), $target).unwrap();
        let mut runner = eagle::until_done(&deployed, Options::new(10_000), planes).unwrap();
        assert!(runner.run().unwrap().done());
        runner.to_host().unwrap();
        drop(runner);
        [x, y, z, t].concat()
    }};
}

/// Contracted Lorenz RK4 in f64 and f32 on the portable loops' widths and the emulated
/// device (the oscillator above runs every loop of the instruction set: Lorenz's are the
/// same operations, and every loop of them would add a minute to this binary's build).
#[test]
fn contracted_lorenz_gives_the_same_bits_on_every_team_and_stays_near_the_plain_kernel() {
    type F64 = PortableLoops<LorenzRk4Contracted>;
    type F32 = PortableLoops<LorenzRk4F32Contracted>;
    let n = 67;
    let want = lorenz!(F64, LorenzRk4Planes, f64, n, host(1));
    let want32 = lorenz!(F32, LorenzRk4F32Planes, f32, n, host(1));
    let bits = |v: &[f32]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for target in [host(2), host(4), host(8), Target::Emulated] {
        let got = lorenz!(F64, LorenzRk4Planes, f64, n, target.clone());
        assert!(got == want, "contracted Lorenz f64 on {target:?}");
        let got = lorenz!(F32, LorenzRk4F32Planes, f32, n, target.clone());
        let same = bits(&got) == bits(&want32);
        assert!(same, "contracted Lorenz f32 on {target:?}");
    }
    let plain = lorenz!(PortableLoops<LorenzRk4>, LorenzRk4Planes, f64, n, host(1));
    let d = max_rel_diff(&plain, &want);
    assert!(d > 0.0 && d < 1e-10, "f64 plain against contracted: {d:e}");
    let plain32 = lorenz!(
        PortableLoops<LorenzRk4F32>,
        LorenzRk4F32Planes,
        f32,
        n,
        host(1)
    );
    let wide = |v: &[f32]| v.iter().map(|&v| f64::from(v)).collect::<Vec<_>>();
    let d = max_rel_diff(&wide(&plain32), &wide(&want32));
    assert!(d > 0.0 && d < 1e-2, "f32 plain against contracted: {d:e}");
}

/// One RK4 step of the damped spring as `#[problem(method = "rk4", contract)]` promises:
/// the right-hand side's `-k * y0 - c * y1` fused (the left product with the right one
/// rounded), and `hawk::methods::rk4_step_fma`'s fused stage updates.
fn fused_spring_step(y: [f64; 2], k: f64, c: f64, h: f64) -> [f64; 2] {
    let f = |y: [f64; 2]| [y[1], (-k).mul_add(y[0], -(c * y[1]))];
    let half = h * 0.5;
    let k1 = f(y);
    let k2 = f([k1[0].mul_add(half, y[0]), k1[1].mul_add(half, y[1])]);
    let k3 = f([k2[0].mul_add(half, y[0]), k2[1].mul_add(half, y[1])]);
    let k4 = f([k3[0].mul_add(h, y[0]), k3[1].mul_add(h, y[1])]);
    let sixth = h / 6.0;
    std::array::from_fn(|i| ((k2[i] + k3[i]).mul_add(2.0, k1[i]) + k4[i]).mul_add(sixth, y[i]))
}

#[test]
fn a_contracted_problem_fuses_its_right_hand_side_and_rk4() {
    let n = 37;
    let k: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / 7.0).collect();
    let c: Vec<f64> = (0..n).map(|i| 0.1 + i as f64 / 50.0).collect();
    let (dt, t_end) = (0.01, 2.0);
    let mut want = vec![[1.0, 0.0]; n];
    for (i, y) in want.iter_mut().enumerate() {
        for _ in 0..200 {
            *y = fused_spring_step(*y, k[i], c[i], dt);
        }
    }
    for target in [host(8), Target::Emulated] {
        let (mut y0, mut y1, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
        let planes = SpringContractedPlanes {
            k: &k,
            c: &c,
            dt,
            t_end,
            y: [&mut y0, &mut y1],
            t: &mut t,
        };
        let deployed = MODULE.deploy(SpringContracted, target.clone()).unwrap();
        let mut runner = eagle::until_done(&deployed, Options::new(1_000), planes).unwrap();
        let rep = runner.run().unwrap();
        assert!(rep.done(), "{rep:?}");
        runner.to_host().unwrap();
        drop(runner);
        for i in 0..n {
            assert_eq!(
                [y0[i].to_bits(), y1[i].to_bits()],
                want[i].map(f64::to_bits),
                "sample {i} on {target:?}"
            );
        }
    }
}
