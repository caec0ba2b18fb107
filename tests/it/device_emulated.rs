//! The emulated device team (the device orchestration and the GPU entries' bodies, run on
//! the CPU with real launch geometry) against the host team: the shared device tests
//! ([`device_tests!`]: bitwise-equal results for every arm and compaction strategy, capped
//! runs included, the graph rules), then what only the emulated device shows without a GPU:
//! start-up through the build cache (cold, warm, corrupt, refused), modules without the
//! kernel.

use crate::common;

use crate::common::device::EMULATED;
use eagle::Target;

crate::device_tests!(emulated, Target::Emulated, EMULATED);

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
    let d = module.deploy(Oscillator, Target::Emulated).unwrap();
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
    for (expect, warm) in [
        (eagle::ModuleSource::Jit, false),
        (eagle::ModuleSource::CacheHit, true),
    ] {
        let d = module_in(dir.path())
            .deploy(Oscillator, Target::Emulated)
            .unwrap();
        assert_eq!(
            d.team().startup().source == eagle::ModuleSource::CacheHit,
            warm
        );
        let mut e = common::Ens::varied(300, 5);
        let planes = e.planes(1.0, 1e-3);
        let mut runner = eagle::until_done(&d, 10_000, planes).unwrap();
        let first = runner.run().unwrap();
        assert_eq!(first.startup, Some(expect));
        assert_eq!(first.startup_s, d.team().startup().load_s);
        assert!(first.startup_s.is_finite() && first.startup_s >= 0.0);
        let second = runner.run().unwrap();
        assert_eq!((second.startup, second.startup_s), (None, 0.0));
    }
}

#[test]
fn without_a_module_the_emulated_device_is_refused_as_cuda_would_be() {
    use eagle::hawk::builtin::Oscillator;
    let e = eagle::runtime::deploy(Oscillator, Target::Emulated, None).unwrap_err();
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
        Target::Emulated,
        eagle::testing::emulated_with_faults(eagle::testing::FaultPlan::none()),
    ] {
        let e = m.deploy(Oscillator, choice).unwrap_err();
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
    // Another kernel of the same module deploys (its portable host loops: a deploy check,
    // where the host loops do not matter).
    m.deploy(eagle::hawk::PortableLoops(LorenzRk4), Target::Emulated)
        .unwrap();
    // Helper kernels are required too.
    let no_helpers = full
        .ptx
        .replace(".entry hawk_while_condition", ".entry renamed");
    let m = eagle::Module {
        ptx: &no_helpers,
        ..full
    };
    let e = m.deploy(Oscillator, Target::Emulated).unwrap_err();
    assert!(e.to_string().contains("hawk_while_condition"), "{e}");
}

#[test]
fn best_with_a_module_without_the_kernel_runs_on_the_host_and_says_why_when_a_gpu_is_there() {
    use eagle::hawk::builtin::Oscillator;
    let empty = eagle::Module::ptx("// no entries", "sm_90").named("empty");
    let d = empty.deploy(Oscillator, eagle::Target::Best).unwrap();
    assert_eq!(d.team().kind(), eagle::TeamKind::Host);
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
    let d = module_in(&bad_dir)
        .deploy(Oscillator, Target::Emulated)
        .unwrap();
    let s = d.team().startup();
    assert_eq!(s.source, Jit);
    assert!(!s.notes.is_empty());
    // The notes reach the first run's report.
    let mut e = common::Ens::varied(100, 6);
    let planes = e.planes(1.0, 1e-3);
    let mut runner = eagle::until_done(&d, 10_000, planes).unwrap();
    let r = runner.run().unwrap();
    assert!(r.done());
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

/// Mode bits of `p` (permissions, setuid/setgid/sticky).
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).unwrap().mode() & 0o7777
}

fn chmod(p: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The one `.cubin` entry in `dir`.
fn the_entry(dir: &std::path::Path) -> std::path::PathBuf {
    let e = entries(dir);
    assert_eq!(e.len(), 1, "{e:?}");
    dir.join(&e[0].0)
}

#[test]
fn emulated_start_up_makes_a_private_cache() {
    use eagle::ModuleSource::{CacheHit, Jit};
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("new/eagle");
    assert_eq!(emulated_startup(module_in(&cache)).source, Jit);
    assert_eq!(mode(&dir.path().join("new")), 0o700);
    assert_eq!(mode(&cache), 0o700);
    assert_eq!(mode(&the_entry(&cache)), 0o600);
    let s = emulated_startup(module_in(&cache));
    assert_eq!(s.source, CacheHit, "{s:?}");
    assert!(s.notes.is_empty(), "{s:?}");
}

#[test]
fn emulated_start_up_refuses_a_cache_directory_others_can_write() {
    use eagle::ModuleSource::{CacheHit, Jit};
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("shared");
    assert_eq!(emulated_startup(module_in(&cache)).source, Jit);
    let stored = entries(&cache);
    for m in [0o777, 0o1777, 0o770, 0o702] {
        chmod(&cache, m);
        // A valid entry is there, but anyone could have put it there: a JIT and one note.
        let s = emulated_startup(module_in(&cache));
        assert_eq!(s.source, Jit, "{m:o}: {s:?}");
        assert_eq!(s.notes.len(), 1, "{s:?}");
        let note = &s.notes[0];
        assert!(note.starts_with("build cache:"), "{note}");
        assert!(
            note.contains(&format!("writable by group or others (mode {m:04o})")),
            "{note}"
        );
        assert!(note.contains("not used"), "{note}");
        // Nothing written either.
        assert_eq!(entries(&cache), stored, "{m:o}");
    }
    // Its owner makes it private again: warm.
    chmod(&cache, 0o700);
    assert_eq!(emulated_startup(module_in(&cache)).source, CacheHit);
    // The note reaches the first run's report (`note:` lines in the CLI).
    chmod(&cache, 0o777);
    let d = module_in(&cache)
        .deploy(eagle::hawk::builtin::Oscillator, Target::Emulated)
        .unwrap();
    let mut e = common::Ens::varied(50, 2);
    let mut runner = eagle::until_done(&d, 10_000, e.planes(1.0, 1e-3)).unwrap();
    let r = runner.run().unwrap();
    assert_eq!(r.startup, Some(eagle::ModuleSource::Jit));
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("writable by group or others")),
        "{:?}",
        r.notes
    );
}

#[test]
fn emulated_start_up_refuses_an_entry_others_can_write_and_rewrites_it() {
    use eagle::ModuleSource::{CacheHit, Jit};
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("eagle");
    assert_eq!(emulated_startup(module_in(&cache)).source, Jit);
    let entry = the_entry(&cache);
    let good = std::fs::read(&entry).unwrap();
    for m in [0o666, 0o620, 0o602] {
        chmod(&entry, m);
        let s = emulated_startup(module_in(&cache));
        assert_eq!(s.source, Jit, "{m:o}: {s:?}");
        assert!(
            s.notes.iter().any(|n| n.starts_with("build cache:")
                && n.contains(&format!("writable by group or others (mode {m:04o})"))),
            "{s:?}"
        );
        // Rewritten, as this user's own: private, same image, warm next time.
        assert_eq!(mode(&entry), 0o600);
        assert_eq!(std::fs::read(&entry).unwrap(), good);
        assert_eq!(emulated_startup(module_in(&cache)).source, CacheHit);
    }
}

#[test]
fn emulated_start_up_refuses_what_another_user_owns() {
    use eagle::ModuleSource::{CacheHit, Jit};
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("eagle");
    assert_eq!(emulated_startup(module_in(&cache)).source, Jit);
    let me = std::fs::metadata(&cache).unwrap().uid();
    if me != 0 {
        // Only root can give a file away; the rule itself is unit-tested against another
        // uid in eagle-runtime's cache tests.
        println!(
            "skipped: an entry of uid 65534 needs root to arrange (running as uid {me}); \
             this test checked nothing"
        );
        return;
    }
    let nobody = Some(65534);
    let entry = the_entry(&cache);
    std::os::unix::fs::chown(&entry, nobody, nobody).unwrap();
    let s = emulated_startup(module_in(&cache));
    assert_eq!(s.source, Jit, "{s:?}");
    assert!(
        s.notes
            .iter()
            .any(|n| n.contains("owned by uid 65534, not by this user (uid 0)")),
        "{s:?}"
    );
    assert_eq!(std::fs::metadata(&entry).unwrap().uid(), 0, "rewritten");
    assert_eq!(emulated_startup(module_in(&cache)).source, CacheHit);
    // A directory of another user: not used at all.
    std::os::unix::fs::chown(&cache, nobody, nobody).unwrap();
    let s = emulated_startup(module_in(&cache));
    assert_eq!(s.source, Jit, "{s:?}");
    assert_eq!(s.notes.len(), 1, "{s:?}");
    assert!(s.notes[0].contains("owned by uid 65534"), "{s:?}");
    assert!(s.notes[0].contains("not used"), "{s:?}");
}

/// A program written and tested on the host team, run unchanged with a device target:
/// no `to_host()` call, the runner dropped, and the caller's planes hold the device's
/// results (dropping the runner brings them home). Before `to_host()`, reading results
/// through the runner is a clear error, never stale data.
#[test]
fn results_come_home_without_to_host() {
    use eagle::hawk::builtin::{Oscillator, OscillatorPlanes};
    let program = |target: Target| {
        let n = 300;
        let omega: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / n as f64).collect();
        let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
        let planes = OscillatorPlanes {
            omega: &omega,
            t_end: 0.5,
            dt: 1e-3,
            x: &mut x,
            v: &mut v,
            t: &mut t,
        };
        let deployed = eagle::deploy(Oscillator, target).unwrap();
        let mut runner = eagle::until_done(&deployed, 10_000, planes).unwrap();
        assert!(runner.run().unwrap().done());
        let early = runner.plane("x").map(|p| p.to_vec());
        drop(runner);
        (x, v, t, early)
    };
    let (hx, hv, ht, on_host) = program(Target::Host(Default::default()));
    let (dx, dv, dt, on_device) = program(Target::Emulated);
    assert_eq!(on_host.as_deref(), Ok(&hx[..]));
    let err = on_device.unwrap_err();
    assert!(matches!(err, eagle::Error::NotHome { .. }), "{err:?}");
    assert!(err.to_string().contains("to_host()"), "{err}");
    let bits = |p: &[f64]| p.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(ht.iter().all(|&t| t >= 0.5));
    assert_eq!(
        (bits(&hx), bits(&hv), bits(&ht)),
        (bits(&dx), bits(&dv), bits(&dt))
    );
}
