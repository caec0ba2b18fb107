//! The main job refuses an ensemble memory cannot hold with one line naming its size, and
//! a non-zero exit: never an allocation abort.

use std::process::Command;

#[test]
fn an_ensemble_too_big_for_memory_is_one_line_and_a_failure() {
    let out = Command::new(env!("CARGO_BIN_EXE_profile-your-run"))
        .args(["--team", "host", "--n", "100000000000"])
        .output()
        .expect("the main job starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("error: --n 100,000,000,000: the ensemble's 4 planes need 3200.0 GB"),
        "{stderr}"
    );
}

/// `--contract` runs the contracted oscillator and says so; the page is the same page.
#[test]
fn contract_runs_the_contracted_oscillator() {
    let dir = std::env::temp_dir().join(format!("eagle-main-contract-{}", std::process::id()));
    let figure = dir.join("page.svg");
    let out = Command::new(env!("CARGO_BIN_EXE_profile-your-run"))
        .args(["--team", "host", "--n", "1000", "--contract", "--figure"])
        .arg(&figure)
        .output()
        .expect("the main job starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.starts_with("running on host (contracted oscillator)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("build: ") && stdout.contains("done: true"),
        "{stdout}"
    );
    assert!(figure.exists());
    std::fs::remove_dir_all(dir).ok();
}
