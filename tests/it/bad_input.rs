//! Bad input: each gives a clear error naming the plane or value, and the caller's planes
//! are left untouched.
//!
//! Decision on params: a NaN or infinite `Param` is an error (it would silently turn every
//! sample into NaN). Per-sample planes are not scanned: a NaN there affects only its sample.

use crate::common::Ens;
use eagle::hawk::Steps;
use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
use eagle::{Error, HostConfig, Isa, Options, PlaneSet, Reorder, Target};

fn err_of(build: impl FnOnce(&mut Ens) -> Result<(), Error>) -> (Error, bool) {
    let mut e = Ens::varied(10, 1);
    let before = e.clone();
    let err = build(&mut e).expect_err("must be refused");
    (err, e == before)
}

fn typed(e: &mut Ens, options: Options, t_end: f64, dt: f64) -> Result<(), Error> {
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best)?;
    let planes = OscillatorPlanes {
        omega: &e.omega,
        t_end,
        dt,
        x: &mut e.x,
        v: &mut e.v,
        t: &mut e.t,
    };
    let mut r = eagle::until_done(&deployed, options, planes)?;
    r.run().map(|_| ())
}

fn check(err: Error, untouched: bool, want: &str) {
    assert!(untouched, "caller's planes changed after: {err}");
    let msg = err.to_string();
    assert_eq!(msg, want);
}

#[test]
fn planes_of_different_lengths() {
    let (e, ok) = err_of(|e| {
        e.v.pop();
        let r = typed(e, Options::new(10), 1.0, 1e-3);
        e.v.push(Ens::varied(10, 1).v[9]);
        r
    });
    check(
        e,
        ok,
        "plane `v` has length 9, but plane `omega` has length 10",
    );
}

#[test]
fn empty_ensemble() {
    let mut e = Ens::varied(0, 1);
    let err = typed(&mut e, Options::new(10), 1.0, 1e-3).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the ensemble is empty: plane `omega` has length 0 (give at least one sample)"
    );
}

#[test]
fn max_steps_zero() {
    let (e, ok) = err_of(|e| typed(e, Options::new(0), 1.0, 1e-3));
    check(e, ok, "max_steps must be at least 1, got 0");
}

#[test]
fn fixed_k_zero() {
    let o = Options::new(10).steps(Steps::Fixed(0));
    let (e, ok) = err_of(|e| typed(e, o, 1.0, 1e-3));
    check(e, ok, "steps per launch must be at least 1, got 0");
}

#[test]
fn nan_and_infinite_params() {
    let (e, ok) = err_of(|e| typed(e, Options::new(10), 1.0, f64::NAN));
    check(e, ok, "param `dt` is NaN: params must be finite");
    let (e, ok) = err_of(|e| typed(e, Options::new(10), f64::INFINITY, 1e-3));
    check(e, ok, "param `t_end` is inf: params must be finite");
}

fn run_set(planes: PlaneSet<'_, f64>) -> Result<(), Error> {
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best)?;
    let mut r = eagle::until_done(&deployed, 10, planes)?;
    r.run().map(|_| ())
}

#[test]
fn missing_unknown_duplicate_and_wrong_role_planes() {
    let mut e = Ens::varied(10, 1);
    let before = e.clone();
    let dt_plane = vec![1e-3; 10];
    let cases = [
        (
            0,
            "kernel `oscillator` needs plane `dt` (Param), but it was not given",
        ),
        (
            1,
            "kernel `oscillator` has no plane `tend` (its planes: omega, t_end, dt, x, v, t)",
        ),
        (2, "plane `dt` was given twice"),
        (
            3,
            "plane `dt` is `Param` in kernel `oscillator`, but was given as `Scalar`",
        ),
    ];
    for (case, want) in cases {
        let base = PlaneSet::new()
            .input("omega", &e.omega)
            .param("t_end", 1.0)
            .mutable("x", &mut e.x)
            .mutable("v", &mut e.v)
            .mutable("t", &mut e.t);
        let planes = match case {
            0 => base,
            1 => base.param("dt", 1e-3).param("tend", 2.0),
            2 => base.param("dt", 1e-3).param("dt", 2e-3),
            _ => base.input("dt", &dt_plane),
        };
        let err = run_set(planes).unwrap_err();
        assert_eq!(err.to_string(), want);
        assert_eq!(e, before, "planes changed after: {want}");
    }
}

#[test]
fn bad_reorder_key_and_host_settings() {
    let o = Options::new(10).reorder(Reorder::ByPlane("dt".into()));
    let (e, ok) = err_of(|e| typed(e, o, 1.0, 1e-3));
    check(
        e,
        ok,
        "reorder key `dt` is not a per-sample plane of kernel `oscillator`",
    );

    let lanes = HostConfig {
        lanes: Some(3),
        ..HostConfig::default()
    };
    let err = eagle::deploy(Oscillator, Target::Host(lanes)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "host team: lane width 3 is not supported (use one of 1, 2, 4, 8, 12, 16, 32, 64)"
    );
    let zero = HostConfig {
        threads: Some(0),
        ..HostConfig::default()
    };
    let err = eagle::deploy(Oscillator, Target::Host(zero)).unwrap_err();
    assert_eq!(err.to_string(), "host team: threads must be at least 1");
    if !Isa::Avx512.available() {
        let isa = HostConfig {
            isa: Some(Isa::Avx512),
            ..HostConfig::default()
        };
        let err = eagle::deploy(Oscillator, Target::Host(isa)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "host team: instruction set avx512 is not available on this CPU"
        );
    }
}

#[test]
fn device_asked_for_without_one() {
    let err = eagle::deploy(Oscillator, Target::Device(0)).unwrap_err();
    assert!(matches!(err, Error::DeviceUnavailable(_)));
    assert!(err.to_string().starts_with("device team unavailable: "));
    // The best team falls back to the host.
    assert_eq!(
        eagle::deploy(Oscillator, eagle::Target::Best)
            .unwrap()
            .team()
            .kind(),
        eagle::TeamKind::Host
    );
}

#[test]
fn unknown_plane_asked_after_a_run() {
    let mut e = Ens::varied(4, 2);
    let deployed = eagle::deploy(Oscillator, eagle::Target::Best).unwrap();
    let planes = e.planes(1.0, 1e-3);
    let runner = eagle::until_done(&deployed, 10, planes).unwrap();
    assert_eq!(
        runner.plane("omega").unwrap_err().to_string(),
        "no plane `omega` in this run"
    );
}

/// Every public entry point of a runner, on the host team and the emulated device: each bad
/// call is tried and its message checked, and the caller's planes stay as they were.
#[test]
fn every_runner_entry_point_refuses_bad_calls() {
    let mut on_host = None;
    for choice in [Target::Host(HostConfig::default()), Target::Emulated] {
        let mut e = Ens::varied(6, 4);
        let before = e.clone();
        let deployed = eagle::deploy(Oscillator, choice.clone()).unwrap();
        let planes = OscillatorPlanes {
            omega: &e.omega,
            t_end: 1.0,
            dt: 1e-3,
            x: &mut e.x,
            v: &mut e.v,
            t: &mut e.t,
        };
        let mut r = eagle::until_done(&deployed, 5, planes).unwrap();
        type Call<'r> = Box<dyn Fn(&mut eagle::Runner<'r, Oscillator>) -> Result<(), Error>>;
        let table: Vec<(&str, Call, &str)> = vec![
            (
                "resume before any run",
                Box::new(|r| r.resume().map(|_| ())),
                "nothing to resume: call run() first (resume continues a run that stopped early)",
            ),
            (
                "plane_mut of an input plane",
                Box::new(|r| r.plane_mut("omega").map(|_| ())),
                "no plane `omega` in this run",
            ),
            (
                "plane_mut of an unknown plane",
                Box::new(|r| r.plane_mut("y").map(|_| ())),
                "no plane `y` in this run",
            ),
            (
                "plane of an unknown plane",
                Box::new(|r| r.plane("").map(|_| ())),
                "no plane `` in this run",
            ),
        ];
        for (what, call, want) in &table {
            let err = call(&mut r).expect_err(what);
            assert_eq!(err.to_string(), *want, "{choice:?}: {what}");
        }
        drop(table);
        // A run that reached its cap, or finished, cannot be resumed either.
        let rep = r.run().unwrap();
        assert_eq!(rep.stop, eagle::Stop::MaxSteps);
        assert!(r.status().iter().all(|&s| s == eagle::Status::Capped));
        let err = r.resume().unwrap_err();
        assert_eq!(err, Error::NothingToResume, "{choice:?}");
        drop(r);
        // The refused calls changed nothing; the capped run's results came home (on the
        // device, when the runner was dropped without to_host()).
        assert_ne!(e, before, "{choice:?}");
        match &on_host {
            None => on_host = Some(e),
            Some(host) => assert_eq!(&e, host, "{choice:?}"),
        }
    }
}
