//! Injected device faults (out of memory at every allocation, a trap or a lost context at
//! every launch): typed errors, the caller's planes untouched, and a clean run after.

use crate::trust::wob::{Wob, deploy_wobble, reference};
use eagle::testing::FaultPlan;
use eagle::{Arm, Compaction, DeviceCompaction, Error, Options, Status, Target};

fn wob_oracle(n: usize) -> Wob {
    let mut w = Wob::new(n, 11, &[3], &[5]);
    reference(&mut w, 200);
    w
}

/// Runs a wobble ensemble on an emulated device with `faults`; returns the error and
/// whether the caller's planes are exactly as before the run.
fn faulty(faults: FaultPlan, options: Options) -> (Option<Error>, bool, Wob) {
    let mut w = Wob::new(700, 11, &[3], &[5]);
    let before = w.clone();
    let deployed = deploy_wobble(eagle::testing::emulated_with_faults(faults)).unwrap();
    let mut r = eagle::until_done(&deployed, options, w.planes()).unwrap();
    let out = r.run().and_then(|_| r.to_host());
    let status = r.status().to_vec();
    drop(r);
    let err = out.err();
    if err.is_some() {
        assert!(status.iter().all(|&s| s == Status::Active));
    }
    let untouched = w == before;
    (err, untouched, w)
}

/// Runs with the fault `plan(k)` for k = 0, 1, 2, ... until a run goes through: every
/// allocation (or launch) of the run fails in turn. Each failing run must give the typed
/// error `check` accepts for `k`, leave the caller's planes as they were and its statuses
/// active; the run that goes through must equal the reference. Returns the errors, one per
/// fault point: how many there are is counted here, never pinned (it changes whenever the
/// device path allocates or launches differently; the contract is that *every* point fails
/// cleanly).
fn every_fault_point(
    what: &str,
    plan: impl Fn(u64) -> FaultPlan,
    options: Options,
    check: impl Fn(&Error, u64) -> bool,
) -> Vec<Error> {
    let mut errors = Vec::new();
    for k in 0.. {
        assert!(k < 100_000, "{what}: still failing at fault point {k}");
        match faulty(plan(k), options.clone()) {
            (Some(e), untouched, _) => {
                assert!(check(&e, k), "{what}: fault point {k}: {e}");
                assert!(
                    untouched,
                    "{what}: fault point {k}: caller's planes changed"
                );
                errors.push(e);
            }
            (None, _, w) => {
                assert_eq!(w.bits(), wob_oracle(700).bits(), "{what}: after {k}");
                break;
            }
        }
    }
    errors
}

/// `(allocation, bytes, bytes in use)` from an emulated out-of-memory error.
fn oom_numbers(e: &Error) -> (u64, u64, u64) {
    let Error::DeviceOutOfMemory { message: m, .. } = e else {
        panic!("not an out-of-memory error: {e}");
    };
    let nums: Vec<u64> = m
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(
        nums.len(),
        3,
        "allocation N of B B failed (U B in use): {m}"
    );
    (nums[0], nums[1], nums[2])
}

/// The entry an emulated kernel trap names: `launch N (Entry) trapped`.
fn trapped_entry(e: &Error) -> &str {
    let Error::KernelTrap { message: m, .. } = e else {
        panic!("not a kernel trap: {e}");
    };
    m.split(['(', ')']).nth(1).unwrap_or("")
}

#[test]
fn injected_device_faults_are_typed_errors_and_leave_the_planes() {
    let gather = || {
        Options::new(200)
            .compaction(Compaction::Always)
            .device_compaction(DeviceCompaction::Gather)
    };
    let no_compaction = || Options::new(200).compaction(Compaction::Off);
    let graph = || {
        Options::new(200)
            .arm(Arm::Graph)
            .compaction(Compaction::Off)
    };
    let oom = |k: u64| FaultPlan {
        fail_alloc: Some(k as usize),
        ..FaultPlan::none()
    };
    let oom_at = |e: &Error, k: u64| {
        let prefix = format!("device out of memory: emulated: allocation {k} of ");
        e.to_string().starts_with(&prefix) && oom_numbers(e).0 == k
    };
    // Out of memory at every allocation: uploading the planes, the compaction buffers.
    let plain = every_fault_point("oom", oom, no_compaction(), oom_at);
    let compacting = every_fault_point("oom, gather", oom, gather(), oom_at);
    println!(
        "allocations: {} without compaction, {} with gather",
        plain.len(),
        compacting.len()
    );
    assert!(!plain.is_empty(), "the planes need device memory");
    assert_eq!(
        oom_numbers(&plain[0]).2,
        0,
        "nothing in use before the first"
    );
    assert!(
        compacting.len() > plain.len(),
        "compaction allocates buffers of its own: {} vs {} allocations",
        compacting.len(),
        plain.len()
    );
    // A device too small for the planes: the allocation that would overflow it fails.
    let small = FaultPlan {
        memory_bytes: Some(10_000),
        ..FaultPlan::none()
    };
    let (err, untouched, _) = faulty(small, Options::new(200));
    let err = err.expect("10 kB cannot hold 700 samples' planes");
    let (_, bytes, in_use) = oom_numbers(&err);
    assert!(in_use <= 10_000 && in_use + bytes > 10_000, "{err}");
    assert!(untouched, "caller's planes changed");
    // A trap at every launch: steps, compaction helpers, graph replays.
    let trap = |k: u64| FaultPlan {
        trap_launch: Some(k),
        ..FaultPlan::none()
    };
    let trap_at = |e: &Error, k: u64| {
        let prefix = format!("a kernel trapped on the device: emulated: launch {k} (");
        matches!(e, Error::KernelTrap { .. }) && e.to_string().starts_with(&prefix)
    };
    let steps = ["hawk_wobble", "hawk_wobble_indexed"];
    for (what, options) in [("trap", Options::new(200)), ("trap, graph replay", graph())] {
        let traps = every_fault_point(what, trap, options, trap_at);
        assert!(!traps.is_empty(), "{what}: no launch");
        assert!(steps.contains(&trapped_entry(&traps[0])), "{}", traps[0]);
    }
    let traps = every_fault_point("trap, gather", trap, gather(), trap_at);
    println!("launches with gather: {}", traps.len());
    let helpers: Vec<&str> = traps
        .iter()
        .map(trapped_entry)
        .filter(|e| !steps.contains(e))
        .collect();
    assert!(
        helpers
            .iter()
            .any(|e| ["hawk_count_chunks", "hawk_scan_counts", "hawk_write_chunks"].contains(e)),
        "a trap in a compaction helper: {helpers:?}"
    );
    // The context lost before every launch.
    let lost = |k: u64| FaultPlan {
        lose_context_at_launch: Some(k),
        ..FaultPlan::none()
    };
    let lost_at = |e: &Error, k: u64| {
        matches!(e, Error::ContextLost { .. })
            && e.to_string()
                == format!("the device context was lost: emulated: context lost at launch {k}")
    };
    for (what, options) in [("lost", gather()), ("lost, graph replay", graph())] {
        assert!(!every_fault_point(what, lost, options, lost_at).is_empty());
    }
    // A fault planned after the run's last launch: the run completes, planes fully updated.
    let late = FaultPlan {
        trap_launch: Some(1_000_000),
        ..FaultPlan::none()
    };
    let (err, _, w) = faulty(late, Options::new(200));
    assert!(err.is_none());
    assert_eq!(w.bits(), wob_oracle(700).bits());
}

#[test]
fn after_a_fault_the_next_run_starts_again_from_the_callers_planes() {
    let mut w = Wob::new(700, 11, &[3], &[5]);
    let faults = FaultPlan {
        lose_context_at_launch: Some(2),
        ..FaultPlan::none()
    };
    let deployed = deploy_wobble(eagle::testing::emulated_with_faults(faults)).unwrap();
    let mut r = eagle::until_done(&deployed, 200, w.planes()).unwrap();
    assert!(matches!(r.run(), Err(Error::ContextLost { .. })));
    // A fresh device context (the plan counts again from 0): lost again, still typed.
    assert!(matches!(r.run(), Err(Error::ContextLost { .. })));
    drop(r);
    let clean = deploy_wobble(Target::Emulated).unwrap();
    let mut r = eagle::until_done(&clean, 200, w.planes()).unwrap();
    r.run().unwrap();
    r.to_host().unwrap();
    drop(r);
    assert_eq!(w.bits(), wob_oracle(700).bits());
}

#[test]
fn a_trap_breaks_every_runner_of_the_device() {
    // As a trap breaks a GPU's context for every user of it in the process: the second
    // runner of the deployment fails with the first one's trap, its planes untouched.
    let trap = FaultPlan {
        trap_launch: Some(1),
        ..FaultPlan::none()
    };
    let deployed = deploy_wobble(eagle::testing::emulated_with_faults(trap)).unwrap();
    let mut a = Wob::new(300, 11, &[3], &[5]);
    let mut b = a.clone();
    let before = b.clone();
    let mut ra = eagle::until_done(&deployed, Options::new(200), a.planes()).unwrap();
    let ea = ra.run().unwrap_err();
    drop(ra);
    let mut rb = eagle::until_done(&deployed, Options::new(200), b.planes()).unwrap();
    let eb = rb.run().and_then(|_| rb.to_host()).unwrap_err();
    drop(rb);
    assert!(matches!(ea, Error::KernelTrap { .. }), "{ea}");
    assert_eq!(trapped_entry(&ea), trapped_entry(&eb), "{eb}");
    assert!(b == before, "the second runner's planes changed");
}

#[test]
fn a_while_graph_that_cannot_be_built_falls_back_to_graph() {
    let faults = FaultPlan {
        fail_while_graph: true,
        ..FaultPlan::none()
    };
    let choice = eagle::testing::emulated_with_faults(faults);
    let o = Options::new(10_000).arm(Arm::GraphWhile);
    let r = crate::common::device::check_against_host(&choice, 500, 5, o);
    assert_eq!(r.arm, Some(Arm::Graph), "{r:?}");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("graph_while fell back to graph") && n.contains("injected")),
        "{:?}",
        r.notes
    );
}
