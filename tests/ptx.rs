//! The embedded PTX assembles with `ptxas -arch=sm_90 -v` and no built-in kernel spills.
//!
//! ptxas comes from pip (`nvidia-cuda-nvcc-cu12`, see `scripts/setup.sh`). It is looked up
//! in `$PTXAS`, then in the project's `.venv`, then on `PATH`; when it is missing this test
//! FAILS (it is never silently skipped).

mod common;

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
    let funcs = common::ptxas::assemble_without_spills(ptx, "hawk");
    assert!(
        funcs.iter().any(|f| f.0 == "hawk_oscillator"),
        "ptxas reported no hawk_oscillator"
    );
}

#[test]
fn embedded_cubin_is_the_ptx_assembled_for_arch() {
    // The build assembles the cubin with the same ptxas this file finds (scripts/setup.sh
    // installs it), so with a ptxas here there must be a cubin.
    assert!(
        common::ptxas::find_ptxas().is_some(),
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
