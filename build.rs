//! Compiles the kernels crate (`kernels-gpu`, crate `hawk`) to PTX with rustc's NVPTX
//! backend and embeds it (see `eagle::ptx`).
//!
//! Environment: `EAGLE_PTX_ARCH` picks the GPU architecture (default `sm_90`);
//! `EAGLE_SKIP_PTX=1` skips the PTX build (then `eagle::ptx::PTX` is `None`).

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
    let arch = env::var("EAGLE_PTX_ARCH").unwrap_or_else(|_| "sm_90".into());
    let ptx_out = out.join("hawk.ptx");
    if env::var("EAGLE_SKIP_PTX").is_ok_and(|v| v == "1") {
        std::fs::write(&ptx_out, "").unwrap();
        println!("cargo:rustc-env=EAGLE_PTX_ARCH={arch}");
        println!("cargo:rustc-cfg=eagle_no_ptx");
        println!("cargo:rustc-check-cfg=cfg(eagle_no_ptx)");
        return;
    }
    println!("cargo:rustc-check-cfg=cfg(eagle_no_ptx)");
    // <target>/<profile>/build/.../out -> <target>/ptx, shared by all profiles.
    let target_dir = out
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "build"))
        .and_then(|b| b.parent()?.parent())
        .unwrap_or(&out)
        .join("ptx");
    let ptx = build_ptx(&manifest, &target_dir, &arch);
    std::fs::copy(&ptx, &ptx_out).unwrap();
    println!("cargo:rustc-env=EAGLE_PTX_ARCH={arch}");
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
