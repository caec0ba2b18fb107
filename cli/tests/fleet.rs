//! One ensemble over several devices of a node (`eagle::shard`): 2 and 3 emulated devices
//! standing for GPUs give one device's results bit for bit on three card workloads, in the
//! caller's order; the edge cases (fewer samples than devices, one sample, bad input, a
//! failing sample) behave as in one runner; the merged report adds up.

use eagle::hawk::builtin::{LorenzRk4F32, LorenzRk78, Oscillator, OscillatorPlanes};
use eagle::hawk::{Kernel, Real};
use eagle::hawk_host::HostReal;
use eagle::shard::{Devices, Fleet};
use eagle::{Error, HostConfig, Options, Status, Target};
use eagle_cli::card::{Deploy, Ensemble, MAX_STEPS, WithEnsemble, Workload};

/// Bits of every mutable plane.
fn bits<R: Real>(muts: &[Vec<R>]) -> Vec<Vec<u64>> {
    muts.iter()
        .map(|m| m.iter().map(|v| v.to_f64().to_bits()).collect())
        .collect()
}

/// One emulated device (a plain runner) vs fleets of 2 and 3 emulated devices, and the
/// host team vs a fleet of the host team and an emulated device.
struct SameBits {
    n: usize,
}

impl WithEnsemble for SameBits {
    type Out = ();
    fn with<K: Kernel>(self, w: Workload, e: Ensemble<K>)
    where
        K::Real: HostReal,
    {
        let options = Options::new(MAX_STEPS);
        let one = eagle::deploy(Deploy::<K>::default(), Target::Emulated).unwrap();
        let mut reference = e.clone();
        let report = reference.run(&one, options.clone()).unwrap();
        assert!(report.done(), "{}", w.name());
        let want = bits(&reference.muts);
        for parts in [2, 3] {
            let fleet = eagle::deploy(Deploy::<K>::default(), Devices::Emulated(parts)).unwrap();
            assert_eq!(fleet.len(), parts);
            let mut mine = e.clone();
            let mut runner = eagle::until_done(&fleet, options.clone(), mine.planes()).unwrap();
            let merged = runner.run().unwrap();
            runner.to_host().unwrap();
            let status = runner.status();
            drop(runner);
            assert_eq!(bits(&mine.muts), want, "{} on {parts} devices", w.name());
            assert!(status.iter().all(|s| *s == Status::Finished));
            let m = &merged.report;
            assert!(m.done());
            assert_eq!((m.samples, m.finished), (self.n, self.n));
            assert_eq!(merged.parts.len(), parts);
            assert_eq!(
                merged.parts.iter().map(|p| p.samples).sum::<usize>(),
                self.n
            );
            assert!(merged.imbalance() >= 1.0);
            // The longest part's launches; every launch's active samples add up.
            let longest = merged.parts.iter().map(|p| p.report.steps).max().unwrap();
            assert_eq!(m.steps, longest);
            assert_eq!(m.active_by_launch.len() as u64, m.launches);
        }
        // A fleet mixing the host team and an emulated device: the same bits again.
        let mixed = eagle::deploy(
            Deploy::<K>::default(),
            Devices::Teams(vec![Target::Host(HostConfig::default()), Target::Emulated]),
        )
        .unwrap()
        .with_weights(vec![3.0, 1.0]);
        let mut mine = e.clone();
        let mut runner = eagle::until_done(&mixed, options, mine.planes()).unwrap();
        assert_eq!(runner.ranges()[0].len(), (self.n * 3).div_ceil(4));
        runner.run().unwrap();
        runner.to_host().unwrap();
        drop(runner);
        assert_eq!(bits(&mine.muts), want, "{} on host + device", w.name());
    }
}

/// `w`'s ensemble of `n` samples, checked by [`SameBits`].
fn same_bits<K: Kernel>(w: Workload, n: usize)
where
    K::Real: HostReal,
{
    let e = w.ensemble::<K>(n).expect("the workload's kernel");
    SameBits { n }.with(w, e);
}

/// Three workloads: one fixed-step `f64` (every sample ends in the same launch), one `f32`,
/// one adaptive with lifetimes that differ (parts that end at different launches). Not every
/// card workload: each kernel run by a runner compiles for every team and lane shape,
/// minutes of CI build per kernel, and sharding does not depend on the kernel's arithmetic.
#[test]
fn two_and_three_emulated_devices_equal_one_bit_for_bit() {
    same_bits::<Oscillator>(Workload::Oscillator, 250);
    same_bits::<LorenzRk4F32>(Workload::LorenzRk4F32, 250);
    // Small: the emulated device runs each GPU thread as scalar code.
    same_bits::<LorenzRk78>(Workload::LorenzRk78F64, 96);
}

/// The oscillator on `n` samples; `f` gets its planes.
fn oscillator<T>(n: usize, f: impl FnOnce(OscillatorPlanes<'_>) -> T) -> (T, Vec<f64>) {
    let omega: Vec<f64> = (0..n)
        .map(|i| 1.0 + 2.0 * i as f64 / (n.max(2) - 1) as f64)
        .collect();
    let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
    let out = f(OscillatorPlanes {
        omega: &omega,
        t_end: 1.0,
        dt: 1e-3,
        x: &mut x,
        v: &mut v,
        t: &mut t,
    });
    (out, x)
}

#[test]
fn fewer_samples_than_devices_and_one_sample() {
    let fleet = eagle::deploy(Deploy::<Oscillator>::default(), Devices::Emulated(3)).unwrap();
    let one = eagle::deploy(Deploy::<Oscillator>::default(), Target::Emulated).unwrap();
    for n in [1, 2] {
        let (want, x1) = oscillator(n, |p| {
            let mut r = eagle::until_done(&one, 10_000, p).unwrap();
            let rep = r.run().unwrap();
            r.to_host().unwrap();
            rep
        });
        let (merged, x) = oscillator(n, |p| {
            let mut r = eagle::until_done(&fleet, 10_000, p).unwrap();
            let ranges = r.ranges();
            assert_eq!(ranges.iter().filter(|r| r.is_empty()).count(), 3 - n);
            assert!(r.runner(0).is_none(), "part 0 has an empty shard");
            let m = r.run().unwrap();
            r.to_host().unwrap();
            assert_eq!(r.status(), vec![Status::Finished; n]);
            m
        });
        assert_eq!(
            x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            x1.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        // Every part takes the same launches here (all samples end together): the merged
        // report reads as one runner's.
        assert_eq!(merged.report.to_string(), want.to_string());
        assert_eq!(merged.parts.len(), 3);
        let idle = merged.parts.iter().filter(|p| p.samples == 0);
        assert!(
            idle.clone()
                .all(|p| p.time_s == 0.0 && p.report.launches == 0)
        );
        assert!(
            merged
                .to_string()
                .ends_with(&format!("devices: 3, imbalance: {:.2}", merged.imbalance()))
        );
    }
}

#[test]
fn bad_input_is_refused_with_one_runners_error_and_nothing_changes() {
    let fleet = eagle::deploy(Deploy::<Oscillator>::default(), Devices::Emulated(2)).unwrap();
    let one = eagle::deploy(Deploy::<Oscillator>::default(), Target::Emulated).unwrap();
    let n = 10;
    let omega = vec![1.0; n];
    let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n - 1], vec![0.0; n]);
    macro_rules! planes {
        () => {
            OscillatorPlanes {
                omega: &omega,
                t_end: 1.0,
                dt: 1e-3,
                x: &mut x,
                v: &mut v,
                t: &mut t,
            }
        };
    }
    let want = eagle::until_done(&one, 100, planes!()).err().unwrap();
    let got = eagle::until_done(&fleet, 100, planes!()).err().unwrap();
    assert!(matches!(got, Error::LengthMismatch { .. }), "{got}");
    assert_eq!(got, want);
    // A NaN param, and max_steps = 0: the same errors as one runner.
    let nan = eagle::PlaneSet::new()
        .input("omega", &omega)
        .param("t_end", f64::NAN)
        .param("dt", 1e-3);
    let (mut x2, mut v2, mut t2) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
    let got = eagle::until_done(
        &fleet,
        100,
        nan.mutable("x", &mut x2)
            .mutable("v", &mut v2)
            .mutable("t", &mut t2),
    )
    .err()
    .unwrap();
    assert!(matches!(got, Error::NonFiniteParam { .. }), "{got}");
    let (got, _) = oscillator(4, |p| eagle::until_done(&fleet, 0, p).err().unwrap());
    assert_eq!(got, Error::MaxSteps);
    assert_eq!(x, vec![1.0; n]);
}

#[test]
fn a_failing_sample_is_isolated_as_on_one_device() {
    let n = 9;
    let run = |fleet: Option<&Fleet<Deploy<Oscillator>>>| {
        let mut omega: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / 4.0).collect();
        omega[5] = f64::NAN; // its state turns NaN at the first step: Failed
        let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
        let planes = OscillatorPlanes {
            omega: &omega,
            t_end: 1.0,
            dt: 1e-3,
            x: &mut x,
            v: &mut v,
            t: &mut t,
        };
        let status = match fleet {
            Some(f) => {
                let mut r = eagle::until_done(f, 10_000, planes).unwrap();
                let m = r.run().unwrap();
                r.to_host().unwrap();
                assert_eq!(m.report.failed, 1);
                r.status()
            }
            None => {
                let one = eagle::deploy(Deploy::<Oscillator>::default(), Target::Emulated).unwrap();
                let mut r = eagle::until_done(&one, 10_000, planes).unwrap();
                assert_eq!(r.run().unwrap().failed, 1);
                r.to_host().unwrap();
                r.status().to_vec()
            }
        };
        let b = |p: &[f64]| p.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        (status, b(&x), b(&v), b(&t))
    };
    let want = run(None);
    assert_eq!(want.0[5], Status::Failed);
    for parts in [2, 3] {
        let fleet =
            eagle::deploy(Deploy::<Oscillator>::default(), Devices::Emulated(parts)).unwrap();
        assert_eq!(run(Some(&fleet)), want, "{parts} devices");
    }
}

#[test]
fn a_device_fault_is_the_faulting_parts_error() {
    use eagle::testing::FaultPlan;
    let faulty = FaultPlan {
        trap_launch: Some(1),
        ..FaultPlan::default()
    };
    let fleet = eagle::deploy(
        Deploy::<Oscillator>::default(),
        Devices::Teams(vec![
            Target::Emulated,
            eagle::testing::emulated_with_faults(faulty),
        ]),
    )
    .unwrap();
    let (err, x) = oscillator(8, |p| {
        let mut r = eagle::until_done(&fleet, 10_000, p).unwrap();
        r.run().err().unwrap()
    });
    assert!(matches!(err, Error::KernelTrap { .. }), "{err}");
    // The faulting part's planes are as they were; the healthy part's hold its results
    // (they came home when the fleet runner was dropped), as on the host team: each part's
    // planes are either as before or fully updated.
    assert_eq!(x[4..], [1.0; 4]);
    assert!(x[..4].iter().all(|&x| x != 1.0), "{x:?}");
}

#[test]
fn best_is_every_gpu_or_the_host_team() {
    let fleet = eagle::deploy(Deploy::<Oscillator>::default(), Devices::Best).unwrap();
    let gpus = eagle::device_count();
    assert_eq!(fleet.len(), gpus.max(1));
    if gpus == 0 {
        assert_eq!(fleet.parts()[0].team().kind(), eagle::TeamKind::Host);
    }
    // Two processes sharing a node without GPUs: the host team on half the cores each.
    let share = Devices::Share { index: 1, of: 2 }.choices();
    if gpus == 0 {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        assert_eq!(
            share,
            vec![Target::Host(HostConfig {
                threads: Some((cores / 2).max(1)),
                ..HostConfig::default()
            })]
        );
    }
}
