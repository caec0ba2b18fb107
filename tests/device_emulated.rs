//! The emulated device team (the device orchestration and the GPU entries' bodies, run on
//! the CPU with real launch geometry) against the host team: bitwise-equal results for
//! every arm and compaction strategy, capped runs included, and the graph rules.

mod common;

use common::device::{ARMS, check_against_host, check_all, check_graph_rules};
use eagle::{Arm, Compaction, DeviceCompaction, Options, Reorder, TeamChoice};

#[test]
fn emulated_device_equals_host_for_every_arm_and_strategy() {
    check_all(&TeamChoice::EmulatedDevice, 1500);
}

#[test]
fn emulated_device_single_sample_and_one_step_cap() {
    for arm in ARMS {
        for n in [1, 255, 256, 257] {
            check_against_host(&TeamChoice::EmulatedDevice, n, 3, Options::new(1).arm(arm));
            let o = Options::new(10_000)
                .arm(arm)
                .compaction(Compaction::Always)
                .device_compaction(DeviceCompaction::Gather)
                .reorder(Reorder::ByPlane("t".into()));
            check_against_host(&TeamChoice::EmulatedDevice, n, 4, o);
        }
    }
}

#[test]
fn emulated_graph_rules() {
    check_graph_rules(&TeamChoice::EmulatedDevice, Arm::Graph, 700);
    check_graph_rules(&TeamChoice::EmulatedDevice, Arm::GraphWhile, 700);
}

#[test]
fn emulated_graph_while_is_one_replay() {
    let r = check_against_host(
        &TeamChoice::EmulatedDevice,
        900,
        11,
        Options::new(10_000)
            .arm(Arm::GraphWhile)
            .compaction(Compaction::Off),
    );
    assert_eq!(r.graph_replays, 1, "{r:?}");
    assert!(r.notes.is_empty(), "{r:?}");
    assert!(r.done);
}

#[test]
fn device_results_stay_on_the_device_until_to_host() {
    use eagle::hawk::builtin::Oscillator;
    let mut e = common::Ens::varied(300, 8);
    let start = e.clone();
    let deployed = eagle::deploy_on(Oscillator, TeamChoice::EmulatedDevice).unwrap();
    assert_eq!(deployed.team().name(), "device");
    let planes = e.planes(1.0, 1e-3);
    let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
    let report = runner.run().unwrap();
    assert!(report.done);
    assert_eq!(
        runner.plane("x").unwrap(),
        &start.x[..],
        "run() must not copy home"
    );
    runner.to_host().unwrap();
    assert_ne!(runner.plane("x").unwrap(), &start.x[..]);
    assert!(runner.terminated().iter().all(|&d| d));
}

/// The built-in module, cached in `dir`.
fn module_in(dir: &std::path::Path) -> eagle::Module<'_> {
    eagle::Module {
        cache: eagle::BuildCache::At(dir),
        ..eagle::ptx::MODULE.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)")
    }
}

/// Deploys the oscillator on the emulated device with `module`; its start-up.
fn emulated_startup(module: eagle::Module<'_>) -> eagle::Startup {
    use eagle::hawk::builtin::Oscillator;
    let d =
        eagle::deploy_on_with_module(Oscillator, TeamChoice::EmulatedDevice, Some(module)).unwrap();
    d.team().startup()
}

/// The cache entries in `dir` (name, contents).
fn entries(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|r| r.flatten().collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|e| {
            let name = e.file_name().into_string().unwrap();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn emulated_start_up_is_cold_then_warm_and_corrupt_entries_are_rebuilt() {
    use eagle::ModuleSource::{CacheHit, Jit};
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("eagle-cache");
    // First team: nothing cached, the emulated device matches no built-in cubin: a JIT.
    let s = emulated_startup(module_in(&cache));
    assert_eq!(s.source, Jit, "{s:?}");
    assert!(s.notes.is_empty(), "{s:?}");
    let stored = entries(&cache);
    assert_eq!(stored.len(), 1, "one entry: {stored:?}");
    let (name, good) = stored[0].clone();
    assert!(name.ends_with(".cubin") && name.len() == 64 + 6, "{name}");
    // Second team, same cache: warm, and the entry is unchanged.
    let s = emulated_startup(module_in(&cache));
    assert_eq!(s.source, CacheHit, "{s:?}");
    assert_eq!(entries(&cache), stored);
    // A corrupted entry (one byte changed) is ignored, noted, rebuilt and rewritten.
    let path = cache.join(&name);
    let mut bad = good.clone();
    bad[3] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let s = emulated_startup(module_in(&cache));
    assert_eq!(s.source, Jit, "{s:?}");
    assert!(s.notes.iter().any(|n| n.contains("build cache")), "{s:?}");
    assert_eq!(std::fs::read(&path).unwrap(), good, "entry rewritten");
    assert_eq!(emulated_startup(module_in(&cache)).source, CacheHit);
    // A truncated one too.
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    assert_eq!(emulated_startup(module_in(&cache)).source, Jit);
    assert_eq!(std::fs::read(&path).unwrap(), good);
    // Other PTX is another entry (the key follows the module's text).
    let other = format!("{}\n// changed\n", eagle::ptx::PTX.unwrap());
    let m = eagle::Module {
        ptx: &other,
        ..module_in(&cache)
    };
    assert_eq!(emulated_startup(m).source, Jit);
    assert_eq!(emulated_startup(m).source, CacheHit);
    assert_eq!(entries(&cache).len(), 2);
    assert_eq!(emulated_startup(module_in(&cache)).source, CacheHit);
}

#[test]
fn start_up_is_reported_by_the_first_run_only() {
    use eagle::hawk::builtin::Oscillator;
    let dir = tempfile::tempdir().unwrap();
    for (expect, warm) in [("jit (cold)", false), ("cache hit (warm)", true)] {
        let d = eagle::deploy_on_with_module(
            Oscillator,
            TeamChoice::EmulatedDevice,
            Some(module_in(dir.path())),
        )
        .unwrap();
        assert_eq!(
            d.team().startup().source == eagle::ModuleSource::CacheHit,
            warm
        );
        let mut e = common::Ens::varied(300, 5);
        let planes = e.planes(1.0, 1e-3);
        let mut runner = eagle::until_done(&d, 10_000, planes).unwrap();
        let first = runner.run().unwrap();
        assert_eq!(first.startup, expect);
        assert_eq!(first.startup_s, d.team().startup().load_s);
        assert!(first.startup_s.is_finite() && first.startup_s >= 0.0);
        let second = runner.run().unwrap();
        assert_eq!((second.startup, second.startup_s), ("", 0.0));
    }
}

#[test]
fn without_a_module_the_emulated_device_is_refused_as_cuda_would_be() {
    use eagle::hawk::builtin::Oscillator;
    let e = eagle::deploy_on_with_module(Oscillator, TeamChoice::EmulatedDevice, None).unwrap_err();
    assert!(matches!(e, eagle::Error::DeviceUnavailable(_)), "{e}");
    assert!(e.to_string().contains("no GPU module"), "{e}");
}

#[test]
fn a_module_without_the_kernel_is_refused_at_deploy_naming_what_is_missing() {
    use eagle::hawk::builtin::{LorenzRk4, Oscillator};
    // The built-in module minus the oscillator's entries (as a user's module would be).
    let full = eagle::ptx::MODULE.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)");
    let without: String = full
        .ptx
        .lines()
        .filter(|l| !l.contains(".entry hawk_oscillator"))
        .collect::<Vec<_>>()
        .join("\n");
    let m = eagle::Module {
        ptx: &without,
        ..full
    };
    for choice in [
        TeamChoice::EmulatedDevice,
        TeamChoice::EmulatedDeviceWith(eagle::FaultPlan::none()),
    ] {
        let e = eagle::deploy_on_with_module(Oscillator, choice, Some(m)).unwrap_err();
        let eagle::Error::MissingEntries {
            kernel,
            module,
            missing,
        } = &e
        else {
            panic!("expected MissingEntries, got {e}");
        };
        assert_eq!((*kernel, module.as_str()), ("oscillator", "hawk"));
        assert_eq!(missing, &["hawk_oscillator", "hawk_oscillator_indexed"]);
        let msg = e.to_string();
        for part in [
            "hawk_oscillator_indexed",
            "module `hawk`",
            "eagle-build",
            "include_module!",
        ] {
            assert!(msg.contains(part), "`{part}` not in: {msg}");
        }
    }
    // Another kernel of the same module deploys.
    eagle::deploy_on_with_module(LorenzRk4, TeamChoice::EmulatedDevice, Some(m)).unwrap();
    // Helper kernels are required too.
    let no_helpers = full
        .ptx
        .replace(".entry hawk_while_condition", ".entry renamed");
    let m = eagle::Module {
        ptx: &no_helpers,
        ..full
    };
    let e =
        eagle::deploy_on_with_module(Oscillator, TeamChoice::EmulatedDevice, Some(m)).unwrap_err();
    assert!(e.to_string().contains("hawk_while_condition"), "{e}");
}

#[test]
fn best_with_a_module_without_the_kernel_runs_on_the_host_and_says_why_when_a_gpu_is_there() {
    use eagle::hawk::builtin::Oscillator;
    let empty = eagle::Module::ptx("// no entries", "sm_90").named("empty");
    let d = eagle::deploy_with(Oscillator, empty).unwrap();
    assert_eq!(d.team().name(), "host");
    let notes = d.startup().notes;
    match eagle::device_unavailable_reason() {
        // No GPU: the host team is the expected choice, nothing to explain.
        Some(_) => assert!(notes.is_empty(), "{notes:?}"),
        None => assert!(
            notes
                .iter()
                .any(|n| n.contains("hawk_oscillator") && n.contains("`empty`")),
            "{notes:?}"
        ),
    }
}

#[test]
fn cache_trouble_never_fails_a_start_up() {
    use eagle::ModuleSource::Jit;
    use eagle::hawk::builtin::Oscillator;
    let dir = tempfile::tempdir().unwrap();
    // A file where the cache directory should be: reading and writing fail, softly.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let bad_dir = file.join("cache");
    let d = eagle::deploy_on_with_module(
        Oscillator,
        TeamChoice::EmulatedDevice,
        Some(module_in(&bad_dir)),
    )
    .unwrap();
    let s = d.team().startup();
    assert_eq!(s.source, Jit);
    assert!(!s.notes.is_empty());
    // The notes reach the first run's report.
    let mut e = common::Ens::varied(100, 6);
    let planes = e.planes(1.0, 1e-3);
    let mut runner = eagle::until_done(&d, 10_000, planes).unwrap();
    let r = runner.run().unwrap();
    assert!(r.done);
    for n in &s.notes {
        assert!(r.notes.contains(n), "{n} not in {:?}", r.notes);
    }
    assert!(
        runner
            .run()
            .unwrap()
            .notes
            .iter()
            .all(|n| !s.notes.contains(n))
    );
    // The cache switched off: cold every time, nothing written.
    let off = eagle::Module {
        cache: eagle::BuildCache::Off,
        ..module_in(dir.path())
    };
    for _ in 0..2 {
        assert_eq!(emulated_startup(off).source, Jit);
    }
    assert_eq!(entries(dir.path()).len(), 1, "only the file made above");
}
