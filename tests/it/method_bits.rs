//! The plain kernels of each explicit method (no events, no stops) give the bits they gave
//! before the method layer changed (`common::golden`); the kernels with events, stops,
//! Rosenbrock methods and noise are held to theirs where their own tests run them
//! (events.rs, stiff.rs, sde.rs).

use crate::common::golden::same_planes_as_before;
use crate::common::host;
use eagle::Options;
use eagle::hawk::PortableLoops;
use eagle_test_support::{
    LotkaDp87, LotkaDp87Planes, LotkaRk78, LotkaRk78Planes, MODULE, RingRk4F648, RingRk4F648Planes,
    RingTsit5F644, RingTsit5F644Planes,
};

/// A small Lorenz-96 ring state: site `k` of sample `i` at `forcing + 0.01 (i + 1) k`.
fn ring(n: usize, sites: usize, forcing: &[f64]) -> Vec<f64> {
    let mut u = vec![0.0; n * sites];
    for k in 0..sites {
        for i in 0..n {
            u[k * n + i] = forcing[i] + 0.01 * (i + 1) as f64 * k as f64;
        }
    }
    u
}

#[test]
fn plain_explicit_problems_give_the_bits_they_gave_before() {
    let n = 6;
    let forcing: Vec<f64> = (0..n).map(|i| 7.0 + 0.25 * i as f64).collect();

    // Tsit5 on a 4-site ring, adaptive, 2-lane host loop (the ring kernels' host code is
    // built where used: here, their portable loops alone).
    let mut u = ring(n, 4, &forcing);
    let (mut t, mut h) = (vec![0.0; n], vec![1e-3; n]);
    let (mut acc, mut rej) = (vec![0.0; n], vec![0.0; n]);
    let d = MODULE
        .deploy(PortableLoops(RingTsit5F644), host(2))
        .unwrap();
    let planes = RingTsit5F644Planes {
        forcing: &forcing,
        t_end: 2.0,
        rtol: 1e-9,
        atol: 1e-9,
        u: eagle::components_mut::<f64, 4>(&mut u).unwrap(),
        t: &mut t,
        h: &mut h,
        accepted: &mut acc,
        rejected: &mut rej,
    };
    let mut r = eagle::until_done(&d, Options::new(100_000), planes).unwrap();
    assert!(r.run().unwrap().done());
    drop(r);
    same_planes_as_before("ring_tsit5", &[&u, &t, &h, &acc, &rej]);

    // RK4 on an 8-site ring.
    let mut u = ring(n, 8, &forcing);
    let mut t = vec![0.0; n];
    let d = MODULE.deploy(PortableLoops(RingRk4F648), host(2)).unwrap();
    let planes = RingRk4F648Planes {
        forcing: &forcing,
        dt: 1e-3,
        t_end: 0.5,
        u: eagle::components_mut::<f64, 8>(&mut u).unwrap(),
        t: &mut t,
    };
    let mut r = eagle::until_done(&d, Options::new(100_000), planes).unwrap();
    assert!(r.run().unwrap().done());
    drop(r);
    same_planes_as_before("ring_rk4", &[&u, &t]);

    // Lotka-Volterra with Dormand-Prince 8(7) and Fehlberg 7(8).
    let a: Vec<f64> = (0..n).map(|i| 1.0 + 0.1 * i as f64).collect();
    let c: Vec<f64> = (0..n).map(|i| 0.5 + 0.05 * i as f64).collect();
    macro_rules! lotka {
        ($kernel:ident, $planes:ident, $name:literal) => {{
            let mut z = vec![1.0; 2 * n];
            let (mut t, mut h) = (vec![0.0; n], vec![1e-3; n]);
            let (mut acc, mut rej) = (vec![0.0; n], vec![0.0; n]);
            let d = MODULE.deploy($kernel, host(2)).unwrap();
            let planes = $planes {
                a: &a,
                c: &c,
                t_end: 10.0,
                rtol: 1e-11,
                atol: 1e-11,
                z: eagle::components_mut::<f64, 2>(&mut z).unwrap(),
                t: &mut t,
                h: &mut h,
                accepted: &mut acc,
                rejected: &mut rej,
            };
            let mut r = eagle::until_done(&d, Options::new(100_000), planes).unwrap();
            assert!(r.run().unwrap().done());
            drop(r);
            same_planes_as_before($name, &[&z, &t, &h, &acc, &rej]);
        }};
    }
    lotka!(LotkaDp87, LotkaDp87Planes, "lotka_dp87");
    lotka!(LotkaRk78, LotkaRk78Planes, "lotka_rk78");
}
