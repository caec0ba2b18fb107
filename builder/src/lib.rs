//! # eagle-build: your kernel crate, compiled for the GPU from your `build.rs`
//!
//! The counterpart of rust-cuda's `cuda_builder`, on rustc's own NVPTX backend. One call
//! compiles a `no_std` kernel crate (its `#[kernel]`s and hawk's helper kernels) to PTX with
//! the pinned nightly (`-Zbuild-std=core`, in its own target directory, so it never waits
//! on the outer build), and, when a `ptxas` is found, assembles it into a cubin for the
//! chosen architecture. The results reach your program through
//! `eagle::include_module!()`, whose `deploy(kernel, target)` runs them.
//!
//! In the `build.rs` of the crate that runs the kernels:
//!
//! ```no_run
//! if let Err(e) = eagle_build::KernelBuilder::new("../kernels").arch("sm_90").build() {
//!     panic!("{e}");
//! }
//! ```
//!
//! The kernel crate needs, at the top of its `lib.rs`:
//!
//! ```text
//! #![no_std]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]
//! ```
//!
//! and `hawk = { ..., default-features = false }` in its `Cargo.toml` (so its module carries
//! only its own kernels and the helper kernels, not hawk's built-in ones).
//!
//! ## Where ptxas is looked for
//! [`KernelBuilder::ptxas`] (must exist), else `$EAGLE_PTXAS` (`off` skips the cubin), else
//! `ptxas` on `PATH`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `/usr/local/cuda/bin`, else a pip
//! install of `nvidia-cuda-nvcc-cu12` in `$VIRTUAL_ENV`, in a `.venv` next to the building
//! crate or any folder above it, or in `~/.local`. Without one the build succeeds with a
//! warning and no cubin (a GPU then JIT-compiles the PTX once and caches it). A build with
//! nothing changed stays a no-op, and a ptxas pip-installed later into a `.venv` of the
//! building package or its workspace is picked up by the next `cargo build` (the build
//! script watches those folders). One installed anywhere else (on `PATH`, in CUDA's
//! folders) is picked up once `PATH`, `CUDA_HOME`, `CUDA_PATH` or `EAGLE_PTXAS` changes, or
//! after `cargo clean -p <your package>`.
//!
//! ## Environment
//! `EAGLE_SKIP_PTX=1` skips the GPU build altogether (the module is then empty: deploying
//! on a device is refused, and the best team is the host). `EAGLE_PTX_ARCH` overrides the
//! architecture given in code. `EAGLE_PTX_TARGET_DIR` names the target folder of the
//! nested GPU build (default: `eagle-build` in the outer build's target folder); builds in
//! different target folders that name the same one compile the kernels once, and the
//! cubins it keeps (`ptxas-cache`) are assembled once.

mod error;
mod metadata;
mod ptxas;
mod toolchain;

pub use error::BuildError;

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which kernel crate to compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelCrate {
    /// A crate folder (holding its `Cargo.toml`), relative to the building crate's folder.
    Path(PathBuf),
    /// A package of the building crate's workspace, by name.
    Package(String),
}

/// What a successful build made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The kernel crate's library name (`vdp_kernels`).
    pub name: String,
    /// The PTX file (empty when the build was skipped).
    pub ptx: PathBuf,
    /// The cubin for [`Built::arch`], when a ptxas assembled one.
    pub cubin: Option<PathBuf>,
    /// The GPU architecture, `sm_XY`.
    pub arch: String,
    /// The GPU entry points in the PTX (`hawk_<kernel>`, `hawk_<kernel>_indexed`, helpers).
    pub entries: Vec<String>,
    /// ptxas's `-v` report (registers, stack, spills per entry), when it ran.
    pub ptxas_log: Option<String>,
}

/// Compiles one kernel crate to PTX (and a cubin), from a `build.rs`.
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    krate: KernelCrate,
    arch: String,
    ptxas: Option<PathBuf>,
    name: Option<String>,
    features: Vec<String>,
    default_features: bool,
}

impl KernelBuilder {
    /// The kernel crate in folder `path` (relative to the building crate's folder).
    pub fn new(path: impl AsRef<Path>) -> Self {
        Self::of(KernelCrate::Path(path.as_ref().to_path_buf()))
    }

    /// The kernel crate `name`, a package of the building crate's workspace.
    pub fn package(name: impl Into<String>) -> Self {
        Self::of(KernelCrate::Package(name.into()))
    }

    fn of(krate: KernelCrate) -> Self {
        KernelBuilder {
            krate,
            arch: "sm_90".into(),
            ptxas: None,
            name: None,
            features: Vec::new(),
            default_features: true,
        }
    }

    /// The GPU architecture (`sm_80`, `sm_90`, ...; default `sm_90`): the PTX's target and
    /// the cubin's. `$EAGLE_PTX_ARCH` overrides it.
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = arch.into();
        self
    }

    /// The `ptxas` to use (it must exist), instead of looking for one.
    pub fn ptxas(mut self, path: impl Into<PathBuf>) -> Self {
        self.ptxas = Some(path.into());
        self
    }

    /// Names the module, for a crate that builds several: `eagle::include_module!("NAME")`
    /// then picks it (without a name, `eagle::include_module!()`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Turns on a feature of the kernel crate.
    pub fn feature(mut self, feature: impl Into<String>) -> Self {
        self.features.push(feature.into());
        self
    }

    /// Leaves the kernel crate's default features off.
    pub fn no_default_features(mut self) -> Self {
        self.default_features = false;
        self
    }

    /// Compiles the kernel crate to PTX (and a cubin when a ptxas is found), tells cargo
    /// when to rerun, and sets the variables `eagle::include_module!` reads. Call it from
    /// `build.rs`; its errors say what to do (print them with `{}`).
    pub fn build(self) -> Result<Built, BuildError> {
        let manifest_dir = PathBuf::from(env_var("CARGO_MANIFEST_DIR")?);
        let out_dir = PathBuf::from(env_var("OUT_DIR")?);
        for var in ["EAGLE_PTX_ARCH", "EAGLE_SKIP_PTX", "EAGLE_PTX_TARGET_DIR"] {
            println!("cargo:rerun-if-env-changed={var}");
        }
        let arch = env::var("EAGLE_PTX_ARCH").unwrap_or_else(|_| self.arch.clone());
        let krate = metadata::resolve(&manifest_dir, &self.krate)?;
        for dir in &krate.local_dirs {
            for watched in ["src", "Cargo.toml", "build.rs"] {
                let p = dir.join(watched);
                if p.exists() {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            }
        }
        let ptx_out = out_dir.join(format!("{}.ptx", krate.lib_name));
        let cubin_out = out_dir.join(format!("{}.{arch}.cubin", krate.lib_name));
        // `include_module!` includes both files, so both always exist (empty when absent).
        write(&cubin_out, b"")?;
        let mut built = Built {
            name: krate.lib_name.clone(),
            ptx: ptx_out.clone(),
            cubin: None,
            arch: arch.clone(),
            entries: Vec::new(),
            ptxas_log: None,
        };
        if env::var("EAGLE_SKIP_PTX").is_ok_and(|v| v == "1") {
            write(&ptx_out, b"")?;
            println!(
                "cargo:warning=EAGLE_SKIP_PTX=1: module `{}` is empty (no GPU entries)",
                krate.lib_name
            );
            self.emit(&built);
            return Ok(built);
        }
        toolchain::check()?;
        metadata::check_attributes(&krate)?;
        let nested = match env::var_os("EAGLE_PTX_TARGET_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => ptx_target_dir(&out_dir),
        };
        let target_dir = nested.join(&arch);
        let ptx = self.compile(&krate, &target_dir, &arch)?;
        std::fs::copy(&ptx, &ptx_out).map_err(|e| BuildError::Io(ptx.clone(), e.to_string()))?;
        let text = std::fs::read_to_string(&ptx_out)
            .map_err(|e| BuildError::Io(ptx_out.clone(), e.to_string()))?;
        built.entries = entries(&text);
        if !built.entries.iter().any(|e| e == "hawk_count_chunks") {
            return Err(BuildError::NoHelpers {
                krate: krate.lib_name.clone(),
            });
        }
        match ptxas::find(self.ptxas.as_deref(), &manifest_dir, &out_dir)? {
            None => println!(
                "cargo:warning=no ptxas found ({}): module `{}` has no cubin, so a GPU JIT-compiles \
                 its PTX on first start (install one, e.g. `pip install nvidia-cuda-nvcc-cu12` \
                 into a .venv, and the next build assembles it)",
                ptxas::WHERE,
                krate.lib_name
            ),
            Some(ptxas) => {
                let cache = nested.join("ptxas-cache");
                built.ptxas_log = Some(ptxas::assemble_cached(
                    &ptxas, &arch, &ptx_out, &cubin_out, &cache,
                )?);
                built.cubin = Some(cubin_out);
            }
        }
        self.emit(&built);
        Ok(built)
    }

    /// `cargo rustc` of the kernel crate for `nvptx64-nvidia-cuda`; the PTX file it wrote.
    fn compile(
        &self,
        krate: &metadata::KernelInfo,
        target_dir: &Path,
        arch: &str,
    ) -> Result<PathBuf, BuildError> {
        let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.arg("rustc")
            .arg("--manifest-path")
            .arg(&krate.manifest)
            .args(["--lib", "--release", "--target", "nvptx64-nvidia-cuda"])
            .args(["-Zbuild-std=core", "--crate-type", "cdylib", "--target-dir"])
            .arg(target_dir)
            .env(
                "CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS",
                format!("-Ctarget-cpu={arch}"),
            );
        // The outer build's profile settings (e.g. `CARGO_PROFILE_RELEASE_OPT_LEVEL=1` for a
        // quick host build) are for the host: the PTX is always the kernel crate's release
        // profile, so every outer profile gets the same module.
        for (var, _) in env::vars_os() {
            if var.to_string_lossy().starts_with("CARGO_PROFILE_") {
                cmd.env_remove(var);
            }
        }
        cmd.env("CARGO_PROFILE_RELEASE_DEBUG", "false");
        if !self.default_features {
            cmd.arg("--no-default-features");
        }
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
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
        let res = cmd.output().map_err(|e| BuildError::Cargo {
            krate: krate.lib_name.clone(),
            hint: String::new(),
            log: format!("could not run cargo: {e}"),
        })?;
        if !res.status.success() {
            let log = String::from_utf8_lossy(&res.stderr).into_owned();
            return Err(BuildError::Cargo {
                krate: krate.lib_name.clone(),
                hint: error::hint_for(&log),
                log,
            });
        }
        Ok(target_dir.join(format!(
            "nvptx64-nvidia-cuda/release/{}.ptx",
            krate.lib_name
        )))
    }

    /// The variables `eagle::include_module!` reads.
    fn emit(&self, built: &Built) {
        let prefix = match &self.name {
            None => "EAGLE_MODULE".to_owned(),
            Some(n) => format!("EAGLE_MODULE_{n}"),
        };
        println!("cargo:rustc-env={prefix}_PTX={}", built.ptx.display());
        let cubin = built
            .ptx
            .with_file_name(format!("{}.{}.cubin", built.name, built.arch));
        println!("cargo:rustc-env={prefix}_CUBIN={}", cubin.display());
        println!("cargo:rustc-env={prefix}_ARCH={}", built.arch);
        println!("cargo:rustc-env={prefix}_NAME={}", built.name);
    }
}

/// The `.entry` names of a PTX module, in order.
pub fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim_start().split(".entry ").nth(1))
        .map(|rest| rest.split(['(', ' ']).next().unwrap_or("").to_owned())
        .filter(|e| !e.is_empty())
        .collect()
}

/// `<target>/eagle-build`: beside the outer build's profiles, shared by all of them.
fn ptx_target_dir(out_dir: &Path) -> PathBuf {
    // <target>/<profile>/build/<pkg>-<hash>/out
    out_dir
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "build"))
        .and_then(|b| b.parent()?.parent())
        .unwrap_or(out_dir)
        .join("eagle-build")
}

fn env_var(name: &str) -> Result<String, BuildError> {
    env::var(name).map_err(|_| BuildError::NotInBuildScript(name.into()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::write(path, bytes).map_err(|e| BuildError::Io(path.to_path_buf(), e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_read_from_visible_and_plain_entry_lines() {
        let ptx = "// x\n.visible .entry hawk_a(\n\t.param .u32 n\n)\n.entry hawk_b (\n.func f(\n";
        assert_eq!(entries(ptx), ["hawk_a", "hawk_b"]);
    }

    #[test]
    fn the_ptx_target_dir_sits_beside_the_profiles() {
        let out = Path::new("/t/release/build/app-1234/out");
        assert_eq!(ptx_target_dir(out), Path::new("/t/eagle-build"));
    }
}
