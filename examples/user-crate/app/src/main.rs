//! A Van der Pol parameter sweep from a user's own kernel crate: on the host team, on the
//! emulated device from the crate's own GPU module (bit for bit the same), and refused with
//! a typed error when deployed with a module that lacks the kernel (eagle's built-in one);
//! and a kernel named like one of eagle's built-ins, refused with eagle's module (which holds
//! the other kernel of that name), run from the crate's own.

use eagle::{Deployed, Error, Module, Options, SaveAt, Target};
use vdp_kernels::{
    BS32, Ball, BallPlanes, Langevin, LangevinPlanes, MY_PI, Oscillator, OscillatorPlanes,
    VanDerPol, VanDerPolBs32, VanDerPolBs32Planes, VanDerPolByHand, VanDerPolByHandPlanes,
    VanDerPolPlanes,
};

/// The sweep's state planes after a run.
#[derive(Clone, PartialEq)]
struct Sweep {
    x: Vec<f64>,
    v: Vec<f64>,
    t: Vec<f64>,
    accepted: Vec<f64>,
    /// x and t saved at t = 1, 2, 3, 4, 5 (the kernel lands on each exactly), point major.
    saved_x: Vec<f64>,
    saved_t: Vec<f64>,
}

/// Runs `n` oscillators, mu in [0.5, 5], from (2, 0) to t = 5 at rtol = atol = `tol`.
fn run(choice: Target, module: Module<'_>, n: usize, tol: f64) -> Result<(Sweep, String), Error> {
    let deployed = module.deploy(VanDerPol, choice)?;
    run_on(&deployed, n, tol)
}

/// [`run`] on a deployed kernel.
fn run_on(deployed: &Deployed<VanDerPol>, n: usize, tol: f64) -> Result<(Sweep, String), Error> {
    let mu: Vec<f64> = (0..n)
        .map(|i| 0.5 + 4.5 * i as f64 / (n - 1) as f64)
        .collect();
    let (mut x, mut v, mut t) = (vec![2.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut h, mut accepted, mut rejected) = (vec![1e-3; n], vec![0.0; n], vec![0.0; n]);
    let team = format!(
        "{} ({})",
        deployed.team().kind(),
        deployed.startup().source.name()
    );
    let planes = VanDerPolPlanes {
        mu: &mu,
        t_end: 5.0,
        rtol: tol,
        atol: tol,
        y: [&mut x, &mut v],
        t: &mut t,
        h: &mut h,
        accepted: &mut accepted,
        rejected: &mut rejected,
    };
    let save = SaveAt::times(&[1.0, 2.0, 3.0, 4.0, 5.0]).planes(&["y[0]", "t"]);
    let options = Options::new(100_000).save(save);
    let mut runner = eagle::until_done(deployed, options, planes)?;
    let report = runner.run()?;
    runner.to_host()?;
    let traj = runner.trajectory()?.expect("saving");
    let (saved_x, saved_t) = (traj.plane("y[0]")?.to_vec(), traj.plane("t")?.to_vec());
    drop(runner);
    assert!(report.done(), "every oscillator reaches t_end: {report}");
    let sweep = Sweep {
        x,
        v,
        t,
        accepted,
        saved_x,
        saved_t,
    };
    Ok((sweep, format!("{team}: {report}")))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let module = eagle::include_module!();
    println!(
        "module `{}` for {}: {} bytes of PTX, cubin: {}, {} entries",
        module.name,
        module.arch,
        module.ptx.len(),
        module
            .cubin
            .map_or("none (no ptxas)".to_owned(), |c| format!(
                "{} bytes",
                c.len()
            )),
        module.entries().count()
    );
    assert!(module.entries().any(|e| e == "hawk_van_der_pol"));
    assert!(
        !module.entries().any(|e| e.starts_with("hawk_lorenz")),
        "hawk's built-in kernels stay out of a user's module"
    );

    let n = 2_000;
    let (host, report) = run(Target::Host(Default::default()), module, n, 1e-8)?;
    println!("host team: {report}");
    let (emulated, report) = run(Target::Emulated, module, n, 1e-8)?;
    println!("emulated device: {report}");
    let same_bits = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits());
    assert!(
        same_bits(&host.x, &emulated.x)
            && same_bits(&host.v, &emulated.v)
            && same_bits(&host.t, &emulated.t)
            && same_bits(&host.accepted, &emulated.accepted),
        "the emulated device differs from the host team"
    );
    assert!(
        host.t.iter().all(|&t| t == 5.0),
        "every sample lands on t_end"
    );
    println!("host team == emulated device: bit for bit, {n} samples");
    assert!(
        same_bits(&host.saved_x, &emulated.saved_x) && same_bits(&host.saved_t, &emulated.saved_t),
        "the emulated device saved other points than the host team"
    );
    let on_times = (0..5).all(|j| {
        host.saved_t[j * n..(j + 1) * n]
            .iter()
            .all(|&t| t == (j + 1) as f64)
    });
    assert!(on_times, "every saved point lands on its time");
    println!("saved points at t = 1..5: on the times exactly, host == emulated device");
    // The kernel written by hand gives the same bits as the problem.
    let by_hand = module.deploy(VanDerPolByHand, Target::Host(Default::default()))?;
    let mu: Vec<f64> = (0..n)
        .map(|i| 0.5 + 4.5 * i as f64 / (n - 1) as f64)
        .collect();
    let (mut x, mut v, mut t) = (vec![2.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut h, mut accepted, mut rejected) = (vec![1e-3; n], vec![0.0; n], vec![0.0; n]);
    let planes = VanDerPolByHandPlanes {
        mu: &mu,
        t_end: 5.0,
        rtol: 1e-8,
        atol: 1e-8,
        x: &mut x,
        v: &mut v,
        t: &mut t,
        h: &mut h,
        accepted: &mut accepted,
        rejected: &mut rejected,
    };
    let save = SaveAt::times(&[1.0, 2.0, 3.0, 4.0, 5.0]).planes(&["x", "t"]);
    let mut runner = eagle::until_done(&by_hand, Options::new(100_000).save(save), planes)?;
    runner.run()?;
    let saved_by_hand = runner.trajectory()?.expect("saving").plane("x")?.to_vec();
    drop(runner);
    assert!(
        same_bits(&host.x, &x)
            && same_bits(&host.v, &v)
            && same_bits(&host.accepted, &accepted)
            && same_bits(&host.saved_x, &saved_by_hand),
        "the problem differs from the kernel written by hand"
    );
    println!("#[problem] == the kernel written by hand: bit for bit, {n} samples");
    let steps: f64 = host.accepted.iter().sum();
    println!(
        "accepted steps: {steps} in all, x(5) at mu = 0.5: {:.9}",
        host.x[0]
    );
    // Against the same sweep at rtol = atol = 1e-12 (a reference ~10^4 times tighter).
    let (fine, _) = run(Target::Host(Default::default()), module, n, 1e-12)?;
    let err = host
        .x
        .iter()
        .zip(&fine.x)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("max |x(5) - x_ref(5)| against rtol = 1e-12: {err:.1e}");
    assert!(err < 1e-5, "rtol = 1e-8 is {err} from the reference");

    // eagle's built-in module does not hold this kernel: refused at deploy, by name.
    let builtin = eagle::ptx::MODULE.expect("eagle was built with its PTX");
    match builtin.deploy(VanDerPol, Target::Emulated) {
        Err(e @ Error::MissingEntries { .. }) => println!("with the built-in module: {e}"),
        Err(e) => return Err(format!("expected MissingEntries, got: {e}").into()),
        Ok(_) => return Err("the built-in module was accepted for a kernel it lacks".into()),
    }

    // `oscillator` is a built-in's name too: eagle's module holds that other kernel and is
    // refused (a GPU would run its code); this crate's module runs this one, as the host.
    match builtin.deploy(Oscillator, Target::Emulated) {
        Err(e @ Error::OtherKernel { .. }) => println!("oscillator, built-in module: {e}"),
        Err(e) => return Err(format!("expected OtherKernel, got: {e}").into()),
        Ok(_) => return Err("the built-in module was accepted for another kernel".into()),
    }
    let on_host = damped(module.deploy(Oscillator, Target::Host(Default::default()))?)?;
    let on_emulated = damped(module.deploy(Oscillator, Target::Emulated)?)?;
    assert!(
        same_bits(&on_host, &on_emulated),
        "damped oscillator: host != emulated"
    );
    println!("oscillator, own module: host team == emulated device: bit for bit");

    // Events: ten bouncing balls, each bounce located inside its step.
    let on_host = bounces(module.deploy(Ball, Target::Host(Default::default()))?)?;
    let on_emulated = bounces(module.deploy(Ball, Target::Emulated)?)?;
    assert!(
        same_bits(&on_host, &on_emulated),
        "bouncing balls: host != emulated"
    );
    println!("bouncing balls: host team == emulated device: bit for bit");

    // Noise: Langevin particles, each path's noise keyed by (seed, path, step).
    let on_host = thermal(module.deploy(Langevin, Target::Host(Default::default()))?)?;
    let on_emulated = thermal(module.deploy(Langevin, Target::Emulated)?)?;
    assert!(
        same_bits(&on_host, &on_emulated),
        "langevin: host != emulated"
    );
    println!("langevin particles: host team == emulated device: bit for bit");

    // A method and a controller of our own: host == emulated == a plain loop, bit for bit.
    let on_host = own_method(module.deploy(VanDerPolBs32, Target::Host(Default::default()))?)?;
    let on_emulated = own_method(module.deploy(VanDerPolBs32, Target::Emulated)?)?;
    assert!(
        on_host
            .iter()
            .zip(&on_emulated)
            .all(|(a, b)| same_bits(a, b)),
        "bs32 + pi: host != emulated"
    );
    let by_loop = own_method_by_loop();
    assert!(
        on_host.iter().zip(&by_loop).all(|(a, b)| same_bits(a, b)),
        "bs32 + pi: the kernel differs from the plain loop"
    );
    let steps: f64 = on_host[4].iter().sum();
    println!(
        "own pair (Bogacki-Shampine 3(2)) and PI controller: host team == emulated device == \
         a plain loop, bit for bit; {steps} accepted steps in all"
    );

    // The best team: a GPU when one is usable (from this crate's cubin or PTX), else the
    // host. Every team gives the same bits.
    let best = module.deploy(VanDerPol, eagle::Target::Best)?;
    let (on_best, report) = run_on(&best, n, 1e-8)?;
    println!("best team: {report}");
    for note in best.startup().notes {
        println!("note: {note}");
    }
    assert!(
        same_bits(&host.x, &on_best.x) && same_bits(&host.t, &on_best.t),
        "the best team differs from the host team"
    );
    println!("best team == host team: bit for bit");
    Ok(())
}

/// x at t = 10 of 64 damped oscillators, omega in [1, 2).
fn damped(deployed: Deployed<Oscillator>) -> Result<Vec<f64>, Error> {
    let n = 64;
    let omega: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / n as f64).collect();
    let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
    let planes = OscillatorPlanes {
        omega: &omega,
        t_end: 10.0,
        dt: 1e-3,
        x: &mut x,
        v: &mut v,
        t: &mut t,
    };
    let mut runner = eagle::until_done(&deployed, 100_000, planes)?;
    runner.run()?;
    runner.to_host()?;
    drop(runner);
    Ok(x)
}

/// The bounce times (bounce-major, 10 x 10) of 10 balls dropped from height 1, restitution
/// in [0.5, 0.9], each checked against the closed form.
fn bounces(deployed: Deployed<Ball>) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let n = 10;
    let e: Vec<f64> = (0..n)
        .map(|i| 0.5 + 0.4 * i as f64 / (n - 1) as f64)
        .collect();
    let mut y = vec![0.0; 2 * n];
    y[..n].fill(1.0);
    let (mut t, mut events) = (vec![0.0; n], vec![0.0; n]);
    let (mut times, mut kinds, mut states) =
        (vec![0.0; 10 * n], vec![0.0; 10 * n], vec![0.0; 20 * n]);
    let planes = BallPlanes {
        e: &e,
        dt: 1e-3,
        t_end: 100.0,
        event_tol: 1e-12,
        y: eagle::components_mut::<f64, 2>(&mut y)?,
        t: &mut t,
        events: &mut events,
        event_t: eagle::components_mut::<f64, 10>(&mut times)?,
        event_kind: eagle::components_mut::<f64, 10>(&mut kinds)?,
        event_y: eagle::components_mut::<f64, 20>(&mut states)?,
    };
    let mut runner = eagle::until_done(&deployed, 1_000_000, planes)?;
    runner.run()?;
    runner.to_host()?;
    drop(runner);
    let first = (2.0f64 / 9.81).sqrt();
    for i in 0..n {
        let mut exact = first;
        for k in 0..10 {
            if k > 0 {
                exact += 2.0 * e[i].powi(k as i32) * first;
            }
            let got = times[k * n + i];
            if (got - exact).abs() >= 1e-9 {
                return Err(format!("ball {i}, bounce {k}: {got} vs {exact}").into());
            }
        }
    }
    Ok(times)
}

/// Positions at t = 20 of 20,000 Langevin particles (k = 1, gamma = 1, temperature 0.5
/// for the first half, 2 for the second), each half's variance checked against
/// equipartition, `<x^2> = T / k`, within 4 standard errors.
fn thermal(deployed: Deployed<Langevin>) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let n = 20_000;
    let temp: Vec<f64> = (0..n).map(|i| if i < n / 2 { 0.5 } else { 2.0 }).collect();
    let path: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut y = vec![0.0; 2 * n];
    let (mut t, mut step) = (vec![0.0; n], vec![0.0; n]);
    let planes = LangevinPlanes {
        temp: &temp,
        k: 1.0,
        gamma: 1.0,
        dt: 0.01,
        t_end: 20.0,
        seed: 1.0,
        path: &path,
        y: eagle::components_mut::<f64, 2>(&mut y)?,
        t: &mut t,
        step: &mut step,
    };
    let mut runner = eagle::until_done(&deployed, 10_000, planes)?;
    runner.run()?;
    runner.to_host()?;
    drop(runner);
    for (half, temp) in [(0..n / 2, 0.5), (n / 2..n, 2.0)] {
        let m = half.len() as f64;
        let var = y[half].iter().map(|x| x * x).sum::<f64>() / m;
        let se = temp * (2.0 / m).sqrt();
        if (var - temp).abs() >= 4.0 * se {
            return Err(format!("langevin at T = {temp}: <x^2> = {var}, +- {se}").into());
        }
    }
    Ok(y)
}

/// The mu of the own-method sweep: 32 oscillators, mu in [0.5, 2].
fn own_mu() -> Vec<f64> {
    (0..32).map(|i| 0.5 + 1.5 * i as f64 / 31.0).collect()
}

/// The own-method sweep's settings: to t = 3 at rtol = atol = 1e-6, first h 1e-3.
const OWN: (f64, f64, f64) = (3.0, 1e-6, 1e-3);

/// The Van der Pol sweep with the user's own pair and controller: the planes x, v, t, h,
/// accepted, rejected and err_prev after the run, in that order.
fn own_method(deployed: Deployed<VanDerPolBs32>) -> Result<Vec<Vec<f64>>, Error> {
    let mu = own_mu();
    let n = mu.len();
    let (t_end, tol, h0) = OWN;
    let mut p: Vec<Vec<f64>> = vec![vec![2.0; n], vec![0.0; n], vec![0.0; n], vec![h0; n]];
    p.extend([vec![0.0; n], vec![0.0; n], vec![0.0; n]]);
    let [x, v, t, h, accepted, rejected, err_prev] = p.as_mut_slice() else {
        unreachable!()
    };
    let planes = VanDerPolBs32Planes {
        mu: &mu,
        t_end,
        rtol: tol,
        atol: tol,
        y: [x, v],
        t,
        h,
        accepted,
        rejected,
        err_prev,
    };
    let mut runner = eagle::until_done(&deployed, 100_000, planes)?;
    let report = runner.run()?;
    runner.to_host()?;
    drop(runner);
    assert!(report.done() && report.failed == 0, "{report}");
    Ok(p)
}

/// The same sweep as a plain scalar loop per sample, written from the pair's and the
/// controller's definitions (hawk's `adaptive_step` docs and `PiControl`'s): the stages,
/// the error norm, accept or reject, the PI factor. `powf` is hawk's (the same bits on
/// every team; std's `powf` is the platform's libm).
fn own_method_by_loop() -> Vec<Vec<f64>> {
    use eagle::hawk::math::pow::powf;
    let mu = own_mu();
    let n = mu.len();
    let (t_end, tol, h0) = OWN;
    let mut out = vec![vec![0.0; n]; 7];
    for (i, &mu) in mu.iter().enumerate() {
        let f = |y: [f64; 2]| [y[1], (mu * (1.0 - y[0] * y[0])).mul_add(y[1], -y[0])];
        let (mut t, mut y, mut h) = (0.0f64, [2.0f64, 0.0], h0);
        let (mut acc, mut rej, mut prev) = (0.0f64, 0.0f64, 0.0f64);
        let k = (BS32.error_order() + 1) as f64;
        while t < t_end {
            let last = h >= t_end - t;
            let step = if last { t_end - t } else { h };
            let t_new = if last { t_end } else { t + step };
            // The stages: y + h * (sum a_ij k_j), zero coefficients skipped.
            let mut ks = [[0.0f64; 2]; 4];
            for s in 0..4 {
                let mut yi = y;
                if s > 0 {
                    for c in 0..2 {
                        let mut sum = 0.0;
                        for j in 0..s {
                            if BS32.a[s][j] != 0.0 {
                                sum += BS32.a[s][j] * ks[j][c];
                            }
                        }
                        yi[c] = y[c] + step * sum;
                    }
                }
                ks[s] = f(yi);
            }
            let (mut y_new, mut err) = ([0.0; 2], [0.0; 2]);
            for c in 0..2 {
                let (mut sb, mut se) = (0.0, 0.0);
                for s in 0..4 {
                    if BS32.b[s] != 0.0 {
                        sb += BS32.b[s] * ks[s][c];
                    }
                    let e = BS32.b[s] - BS32.b_embedded[s];
                    if e != 0.0 {
                        se += e * ks[s][c];
                    }
                }
                y_new[c] = y[c] + step * sb;
                err[c] = step * se;
            }
            let mut sum = 0.0;
            for c in 0..2 {
                let r = err[c] / (tol + tol * y[c].abs().max(y_new[c].abs()));
                sum += r * r;
            }
            let norm = (sum / 2.0).sqrt();
            let ok = norm <= 1.0 && y_new.iter().all(|v| v.is_finite());
            let integral = MY_PI.safety * powf(norm, -MY_PI.beta1 / k);
            let raw = if ok {
                integral * powf(prev.max(1e-4), MY_PI.beta2 / k)
            } else {
                integral
            };
            if ok {
                prev = norm.max(1e-4);
            }
            let h_new = step * raw.max(MY_PI.fac_min).min(MY_PI.fac_max);
            if ok {
                t = t_new;
                y = y_new;
                acc += 1.0;
            } else {
                rej += 1.0;
            }
            h = h_new;
        }
        let planes = [y[0], y[1], t, h, acc, rej, prev];
        for (p, v) in out.iter_mut().zip(planes) {
            p[i] = v;
        }
    }
    out
}
