//! `lanes: auto` across processes: the main job's first process probes and stores its
//! choice in the build cache; the next processes check it (`CHECKS` in all measure it);
//! after them a process reports it as cached and starts at that width; a corrupt or
//! foreign entry is ignored and measured again, never an error.

use std::path::Path;
use std::process::Command;

/// Runs the main job with the build cache in `cache`; its `lanes:` line.
fn lanes_line(cache: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_profile-your-run"))
        .args(["--team", "host", "--n", "20000"])
        .arg("--figure")
        .arg(cache.join("figure.svg"))
        .env("EAGLE_CACHE_DIR", cache)
        .env_remove("EAGLE_ISA")
        .output()
        .expect("the main job runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("launches: 16, steps: 1024"), "{text}");
    text.lines()
        .find(|l| l.starts_with("lanes: "))
        .unwrap_or_else(|| panic!("no lanes line in:\n{text}"))
        .to_owned()
}

/// `lanes: 32 x f64 on avx512 (probed; 4 of 16 launches measured), 2 threads` ->
/// (`32 x f64 on avx512`, `probed`, 4); no `; ...`: 0 launches measured.
fn split(line: &str) -> (String, String, u64) {
    let (shape, rest) = line.split_once(" (").unwrap();
    let inside = rest.split(')').next().unwrap();
    let (source, measured) = match inside.split_once("; ") {
        Some((source, m)) => (source, m.split(' ').next().unwrap().parse().unwrap()),
        None => (inside, 0),
    };
    (shape.to_owned(), source.to_owned(), measured)
}

#[test]
fn a_second_process_starts_from_the_cached_choice_and_a_bad_entry_is_measured_again() {
    let dir = tempfile::tempdir().unwrap();
    let (mut shape, source, measured) = split(&lanes_line(dir.path()));
    assert_eq!(source, "probed", "{shape}");
    // The probe and the three finalists' launches at least.
    assert!(measured >= 4, "{measured} launches measured");
    // The checks keep the choice (cached) or replace it by a faster finalist (probed).
    for _ in 2..=eagle::hawk_host::tune::CHECKS {
        let (checked, source, measured) = split(&lanes_line(dir.path()));
        assert!(source == "cached" || source == "probed", "{source}");
        assert!(measured >= 2, "a check measures: {measured} launches");
        shape = checked;
    }
    let (again, source, measured) = split(&lanes_line(dir.path()));
    assert_eq!(
        (again.as_str(), source.as_str(), measured),
        (shape.as_str(), "cached", 0)
    );
    // Corrupt every tuning entry: the next process probes again, without an error.
    let host = dir.path().join("host");
    let entries: Vec<_> = std::fs::read_dir(&host).unwrap().flatten().collect();
    assert_eq!(entries.len(), 1, "one entry for one kernel");
    for e in &entries {
        std::fs::write(
            e.path(),
            b"eagle host tuning v1\nsomething else\navx512 999\n",
        )
        .unwrap();
    }
    let (_, source, _) = split(&lanes_line(dir.path()));
    assert_eq!(source, "probed");
    // A forced width is reported as fixed.
    let out = Command::new(env!("CARGO_BIN_EXE_profile-your-run"))
        .args(["--team", "host", "--n", "2000", "--lanes", "8", "--figure"])
        .arg(dir.path().join("f.svg"))
        .env("EAGLE_CACHE_DIR", dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("lanes: 8 x f64 on ") && text.contains("(fixed)"),
        "{text}"
    );
}
