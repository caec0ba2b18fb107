//! The embedded PTX assembles with `ptxas -arch=sm_90 -v` and no built-in kernel spills.
//!
//! ptxas comes from pip (`nvidia-cuda-nvcc-cu12`, see `scripts/setup.sh`). It is looked up
//! in `$PTXAS`, then in the project's `.venv`, then on `PATH`; when it is missing this test
//! FAILS (it is never silently skipped).

use std::path::{Path, PathBuf};
use std::process::Command;

fn find_ptxas() -> Option<PathBuf> {
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

/// (entry name, registers, stack bytes, spill store bytes, spill load bytes) per function.
fn parse_ptxas(log: &str) -> Vec<(String, u32, u32, u32, u32)> {
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
    // Every "Function properties for NAME" line, then its properties line; the "Used N
    // registers" line belongs to it only if it comes before the next function's block
    // (functions it calls print their own blocks in between, without one).
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some(rest) = l.split("Function properties for ").nth(1) {
            let props = lines.get(i + 1).expect("properties line");
            let regs = lines[i + 1..]
                .iter()
                .skip(1)
                .take_while(|l| !l.contains("Function properties for "))
                .find_map(|l| l.split("Used ").nth(1))
                .map_or(0, |r| r.split_whitespace().next().unwrap().parse().unwrap());
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

#[test]
fn embedded_ptx_assembles_for_sm_90_without_spills() {
    let ptx = eagle::ptx::PTX.expect("the PTX build was skipped (EAGLE_SKIP_PTX=1)");
    assert!(
        ptx.contains(".entry hawk_oscillator("),
        "oscillator entry missing"
    );
    for entry in [
        "hawk_oscillator_indexed",
        "hawk_count_chunks",
        "hawk_scan_counts",
        "hawk_write_chunks",
        "hawk_gather_b8",
        "hawk_scatter_b8",
        "hawk_gather_b1",
        "hawk_scatter_b1",
        "hawk_while_condition",
    ] {
        assert!(
            ptx.contains(&format!(".entry {entry}(")),
            "{entry} entry missing"
        );
    }
    assert!(ptx.contains(&format!(".target {}", eagle::ptx::ARCH)));
    let ptxas = find_ptxas().expect(
        "ptxas not found: run scripts/setup.sh (pip installs nvidia-cuda-nvcc-cu12 into .venv) \
         or set PTXAS",
    );
    let dir = std::env::temp_dir().join(format!("eagle-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("hawk.ptx");
    std::fs::write(&src, ptx).unwrap();
    let out = Command::new(&ptxas)
        .args(["-arch=sm_90", "-v", "-o"])
        .arg(dir.join("hawk.cubin"))
        .arg(&src)
        .output()
        .expect("could not run ptxas");
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ptxas failed:\n{log}");
    let funcs = parse_ptxas(&log);
    assert!(
        funcs.iter().any(|f| f.0 == "hawk_oscillator"),
        "ptxas reported no hawk_oscillator:\n{log}"
    );
    // Every entry of the PTX must have been read from ptxas's report.
    for entry in ptx.split(".entry ").skip(1) {
        let name = entry.split('(').next().unwrap().trim();
        assert!(
            funcs.iter().any(|f| f.0 == name),
            "ptxas reported nothing read for entry {name}:\n{log}"
        );
    }
    for (name, regs, stack, stores, loads) in &funcs {
        println!(
            "{name}: {regs} registers, {stack} B stack, {stores} B spill stores, {loads} B spill loads"
        );
        assert_eq!((*stores, *loads), (0, 0), "{name} spills:\n{log}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn embedded_cubin_is_the_ptx_assembled_for_arch() {
    // The build assembles the cubin with the same ptxas this file finds (scripts/setup.sh
    // installs it), so with a ptxas here there must be a cubin.
    assert!(
        find_ptxas().is_some(),
        "ptxas not found: run scripts/setup.sh or set PTXAS"
    );
    let cubin = eagle::ptx::CUBIN.expect("build.rs found no ptxas or ptxas failed (see warnings)");
    // A 64-bit little-endian ELF for NVIDIA CUDA (e_machine 190).
    assert_eq!(&cubin[..4], b"\x7fELF");
    assert_eq!((cubin[4], cubin[5]), (2, 1), "ELF64, little endian");
    assert_eq!(u16::from_le_bytes([cubin[18], cubin[19]]), 190, "EM_CUDA");
    let has = |s: &str| cubin.windows(s.len()).any(|w| w == s.as_bytes());
    for entry in [
        "hawk_oscillator",
        "hawk_count_chunks",
        "hawk_while_condition",
    ] {
        assert!(has(entry), "{entry} missing from the cubin");
    }
    let module = eagle::ptx::MODULE.unwrap();
    assert_eq!(module.cubin, Some(cubin));
    assert_eq!(module.arch, eagle::ptx::ARCH);
    assert_eq!(module.ptx, eagle::ptx::PTX.unwrap());
}
