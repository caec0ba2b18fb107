//! ptxas for tests: found in `$PTXAS`, the project's `.venv` or on `PATH`; its `-v` report
//! parsed, and a module checked for spills.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The ptxas to test with, or `None`.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let venv_lib = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/lib");
    if let Ok(dirs) = std::fs::read_dir(&venv_lib) {
        for d in dirs.flatten() {
            let p = d.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
            if p.exists() {
                return Some(p);
            }
        }
    }
    let on_path = Command::new("ptxas").arg("--version").output();
    on_path
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "ptxas".into())
}

/// (function name, registers (0 for non-entry functions), stack bytes, spill store bytes, spill load bytes) per function.
pub fn parse_ptxas(log: &str) -> Vec<(String, u32, u32, u32, u32)> {
    let num_before = |line: &str, what: &str| -> u32 {
        let i = line
            .find(what)
            .unwrap_or_else(|| panic!("no `{what}` in `{line}`"));
        line[..i]
            .split_whitespace()
            .last()
            .unwrap()
            .parse()
            .unwrap()
    };
    let mut out = Vec::new();
    let mut lines = log.lines().peekable();
    while let Some(l) = lines.next() {
        if let Some(rest) = l.split("Function properties for ").nth(1) {
            let props = lines.next().expect("properties line");
            // Entries report their registers next; called functions (a panic path) do not.
            let regs = match lines.peek().and_then(|l| l.split("info    : Used ").nth(1)) {
                Some(r) => r.split_whitespace().next().unwrap().parse().unwrap(),
                None => 0,
            };
            out.push((
                rest.trim().to_owned(),
                regs,
                num_before(props, "bytes stack frame"),
                num_before(props, "bytes spill stores"),
                num_before(props, "bytes spill loads"),
            ));
        }
    }
    out
}

/// Assembles `ptx` with `ptxas -arch=sm_90 -v` (the test FAILS without a ptxas: run
/// scripts/setup.sh) and asserts that no function spills; the report per function.
pub fn assemble_without_spills(ptx: &str, stem: &str) -> Vec<(String, u32, u32, u32, u32)> {
    let ptxas = find_ptxas().expect(
        "ptxas not found: run scripts/setup.sh (pip installs nvidia-cuda-nvcc-cu12 into .venv) \
         or set PTXAS",
    );
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("{stem}.ptx"));
    std::fs::write(&src, ptx).unwrap();
    let out = Command::new(&ptxas)
        .args(["-arch=sm_90", "-v", "-o"])
        .arg(dir.path().join(format!("{stem}.cubin")))
        .arg(&src)
        .output()
        .expect("could not run ptxas");
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ptxas failed:\n{log}");
    check_report(&log, ptx, &[])
}

/// Checks a `ptxas -v` report `log` of `ptx`: every entry reported, none spilling but the
/// functions whose (mangled) name contains one of `local_ok` (kernels whose state cannot fit a thread's
/// registers, which run from local memory by design; their figures are printed all the
/// same); the report per function.
pub fn check_report(log: &str, ptx: &str, local_ok: &[&str]) -> Vec<(String, u32, u32, u32, u32)> {
    let funcs = parse_ptxas(log);
    // Every entry of the PTX must have been read from ptxas's report.
    for entry in eagle::Module::ptx(ptx, "sm_90").entries() {
        assert!(
            funcs.iter().any(|f| f.0 == entry),
            "ptxas reported nothing read for entry {entry}:\n{log}"
        );
    }
    for (name, regs, stack, stores, loads) in &funcs {
        let local = local_ok.iter().any(|p| name.contains(p));
        println!(
            "{name}: {regs} registers, {stack} B stack, {stores} B spill stores, {loads} B spill \
             loads{}",
            if local {
                " (local memory by design)"
            } else {
                ""
            }
        );
        if !local {
            assert_eq!((*stores, *loads), (0, 0), "{name} spills:\n{log}");
        }
    }
    funcs
}
