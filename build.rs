//! Compiles the kernels crate (`kernels-gpu`, crate `hawk`) to PTX with rustc's NVPTX
//! backend and embeds it (see `eagle::ptx`); when a `ptxas` is found, also assembles it
//! into a cubin for the same architecture and embeds that (`eagle::ptx::CUBIN`), so a GPU
//! of that architecture starts without a JIT.
//!
//! Environment: `EAGLE_PTX_ARCH` picks the GPU architecture (default `sm_90`);
//! `EAGLE_SKIP_PTX=1` skips the PTX build (then `eagle::ptx::PTX` and `CUBIN` are `None`);
//! `EAGLE_PTXAS` names the `ptxas` to use (else the project's `.venv`, else `PATH`). No
//! `ptxas` or a failing one is a build warning, and `CUBIN` is `None` (after installing
//! one, `touch build.rs` or set `EAGLE_PTXAS` to rebuild with it).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    for p in [
        "kernels-gpu/src",
        "kernels-gpu/macros/src",
        "kernels-gpu/Cargo.toml",
    ] {
        println!("cargo:rerun-if-changed={}", manifest.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=EAGLE_PTX_ARCH");
    println!("cargo:rerun-if-env-changed=EAGLE_SKIP_PTX");
    println!("cargo:rerun-if-env-changed=EAGLE_PTXAS");
    println!("cargo:rustc-check-cfg=cfg(eagle_no_ptx)");
    println!("cargo:rustc-check-cfg=cfg(eagle_cubin)");
    let arch = env::var("EAGLE_PTX_ARCH").unwrap_or_else(|_| "sm_90".into());
    let ptx_out = out.join("hawk.ptx");
    let cubin_out = out.join("hawk.cubin");
    // Both files always exist (empty when absent): `include_*!` needs them.
    std::fs::write(&cubin_out, b"").unwrap();
    println!("cargo:rustc-env=EAGLE_PTX_ARCH={arch}");
    if env::var("EAGLE_SKIP_PTX").is_ok_and(|v| v == "1") {
        std::fs::write(&ptx_out, "").unwrap();
        println!("cargo:rustc-cfg=eagle_no_ptx");
        return;
    }
    // <target>/<profile>/build/.../out -> <target>/ptx, shared by all profiles.
    let target_dir = out
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "build"))
        .and_then(|b| b.parent()?.parent())
        .unwrap_or(&out)
        .join("ptx");
    let ptx = build_ptx(&manifest, &target_dir, &arch);
    std::fs::copy(&ptx, &ptx_out).unwrap();
    match find_ptxas(&manifest) {
        None => println!(
            "cargo:warning=no ptxas found (EAGLE_PTXAS, .venv, PATH): eagle::ptx::CUBIN is \
             None, GPUs JIT the PTX on first start (run scripts/setup.sh)"
        ),
        Some(ptxas) => match assemble(&ptxas, &arch, &ptx_out, &cubin_out) {
            Ok(()) => println!("cargo:rustc-cfg=eagle_cubin"),
            Err(e) => {
                std::fs::write(&cubin_out, b"").unwrap();
                for line in e.lines().take(20) {
                    println!("cargo:warning=ptxas: {line}");
                }
                println!("cargo:warning=eagle::ptx::CUBIN is None (ptxas failed)");
            }
        },
    }
}

/// `$EAGLE_PTXAS`, else pip's ptxas in the project's `.venv` (`scripts/setup.sh`), else
/// `ptxas` on `PATH` when it runs.
fn find_ptxas(manifest: &Path) -> Option<PathBuf> {
    if let Ok(p) = env::var("EAGLE_PTXAS") {
        return Some(PathBuf::from(p));
    }
    if let Ok(dirs) = std::fs::read_dir(manifest.join(".venv/lib")) {
        let mut found: Vec<PathBuf> = dirs
            .flatten()
            .filter(|d| d.file_name().to_string_lossy().starts_with("python3"))
            .map(|d| d.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas"))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        if let Some(p) = found.pop() {
            println!("cargo:rerun-if-changed={}", p.display());
            return Some(p);
        }
    }
    let runs = Command::new("ptxas").arg("--version").output();
    runs.ok()
        .filter(|o| o.status.success())
        .map(|_| PathBuf::from("ptxas"))
}

/// `ptxas -arch=<arch> -O3 <ptx> -o <cubin>`; `Err(log)` when it fails or cannot start.
fn assemble(ptxas: &Path, arch: &str, ptx: &Path, cubin: &Path) -> Result<(), String> {
    let res = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-O3")
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output()
        .map_err(|e| format!("could not run {}: {e}", ptxas.display()))?;
    if res.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} exited with {}:\n{}{}",
            ptxas.display(),
            res.status,
            String::from_utf8_lossy(&res.stderr),
            String::from_utf8_lossy(&res.stdout)
        ))
    }
}

fn build_ptx(manifest: &Path, target_dir: &Path, arch: &str) -> PathBuf {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(manifest)
        .args([
            "rustc",
            "-p",
            "hawk",
            "--release",
            "--target",
            "nvptx64-nvidia-cuda",
        ])
        .args(["-Zbuild-std=core", "--crate-type", "cdylib", "--target-dir"])
        .arg(target_dir)
        .env(
            "CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS",
            format!("-Ctarget-cpu={arch}"),
        )
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false");
    // The outer build's flags and wrappers (clippy, coverage) are for the host, not PTX.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_BUILD_TARGET",
    ] {
        cmd.env_remove(var);
    }
    let res = cmd.output().expect("could not run cargo for the PTX build");
    if !res.status.success() {
        panic!(
            "PTX build of kernels-gpu failed (set EAGLE_SKIP_PTX=1 to build without it):\n{}",
            String::from_utf8_lossy(&res.stderr)
        );
    }
    target_dir.join("nvptx64-nvidia-cuda/release/hawk.ptx")
}
