//! The kernel crate as `cargo metadata` describes it: its manifest, library name and root
//! file, and the folders of every local (path) package it builds from, for
//! `rerun-if-changed`.

use crate::{BuildError, KernelCrate};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the build needs to know about the kernel crate.
#[derive(Clone, Debug)]
pub(crate) struct KernelInfo {
    /// Its `Cargo.toml`.
    pub manifest: PathBuf,
    /// Its library target's name (`-` as `_`): the PTX file's stem.
    pub lib_name: String,
    /// Its library's root source file.
    pub lib_root: PathBuf,
    /// The folders of the crate and of every path dependency it builds from.
    pub local_dirs: Vec<PathBuf>,
}

/// Finds the kernel crate and reads its metadata (dependencies included).
pub(crate) fn resolve(manifest_dir: &Path, krate: &KernelCrate) -> Result<KernelInfo, BuildError> {
    let (label, manifest) = match krate {
        KernelCrate::Path(p) => {
            let dir = manifest_dir.join(p);
            let manifest = dir.join("Cargo.toml");
            if !manifest.is_file() {
                return Err(BuildError::KernelCrate {
                    krate: p.display().to_string(),
                    why: format!("no Cargo.toml in {}", dir.display()),
                });
            }
            (p.display().to_string(), manifest)
        }
        KernelCrate::Package(name) => {
            let ws = metadata(&manifest_dir.join("Cargo.toml"), true, name)?;
            let pkg = packages(&ws)
                .find(|p| p["name"] == name.as_str())
                .ok_or_else(|| BuildError::KernelCrate {
                    krate: name.clone(),
                    why: "no package of that name in this workspace".into(),
                })?;
            (name.clone(), PathBuf::from(str_of(pkg, "manifest_path")))
        }
    };
    let meta = metadata(&manifest, false, &label)?;
    let root_id = meta["resolve"]["root"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let root = packages(&meta)
        .find(|p| p["id"] == root_id.as_str())
        .or_else(|| {
            let manifest = manifest.canonicalize().ok()?;
            packages(&meta).find(|p| {
                Path::new(str_of(p, "manifest_path"))
                    .canonicalize()
                    .is_ok_and(|m| m == manifest)
            })
        })
        .ok_or_else(|| BuildError::KernelCrate {
            krate: label.clone(),
            why: "cargo metadata does not list it".into(),
        })?;
    let lib = root["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "lib" || k == "rlib" || k == "cdylib"))
        })
        .ok_or_else(|| BuildError::KernelCrate {
            krate: label.clone(),
            why: "it has no library target (a kernel crate is a library: src/lib.rs)".into(),
        })?;
    let local_dirs = packages(&meta)
        .filter(|p| p["source"].is_null())
        .filter_map(|p| {
            Path::new(str_of(p, "manifest_path"))
                .parent()
                .map(Path::to_path_buf)
        })
        .collect();
    Ok(KernelInfo {
        manifest,
        lib_name: str_of(lib, "name").replace('-', "_"),
        lib_root: PathBuf::from(str_of(lib, "src_path")),
        local_dirs,
    })
}

/// The lines a kernel crate's root needs for the GPU build.
pub(crate) const NO_STD: &str = "#![no_std]";
/// See [`NO_STD`].
pub(crate) const GPU_ABI: &str = "#![cfg_attr(target_arch = \"nvptx64\", feature(abi_gpu_kernel))]";

/// Refuses a kernel crate whose root lacks `#![no_std]` or the `abi_gpu_kernel` feature,
/// naming the lines to add (before a build that would fail with a less direct message).
pub(crate) fn check_attributes(krate: &KernelInfo) -> Result<(), BuildError> {
    let src = std::fs::read_to_string(&krate.lib_root)
        .map_err(|e| BuildError::Io(krate.lib_root.clone(), e.to_string()))?;
    let code: String = src
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let mut missing = Vec::new();
    if !squeezed.contains("#![no_std]") {
        missing.push(NO_STD);
    }
    if !squeezed.contains("feature(abi_gpu_kernel") && !squeezed.contains(",abi_gpu_kernel") {
        missing.push(GPU_ABI);
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(BuildError::MissingAttributes {
        krate: krate.lib_name.clone(),
        root: krate.lib_root.clone(),
        missing: missing.join("` and `"),
        lines: missing.join("\n"),
    })
}

fn metadata(manifest: &Path, no_deps: bool, label: &str) -> Result<Value, BuildError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(manifest);
    if no_deps {
        cmd.arg("--no-deps");
    }
    let err = |why: String| BuildError::KernelCrate {
        krate: label.into(),
        why,
    };
    let out = cmd
        .output()
        .map_err(|e| err(format!("could not run cargo metadata: {e}")))?;
    if !out.status.success() {
        return Err(err(format!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| err(format!("cargo metadata's JSON: {e}")))
}

fn packages(meta: &Value) -> impl Iterator<Item = &Value> {
    meta["packages"].as_array().into_iter().flatten()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(src: &str) -> (tempfile::TempDir, KernelInfo) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("lib.rs");
        std::fs::write(&root, src).unwrap();
        let info = KernelInfo {
            manifest: dir.path().join("Cargo.toml"),
            lib_name: "k".into(),
            lib_root: root,
            local_dirs: vec![],
        };
        (dir, info)
    }

    #[test]
    fn a_package_of_the_workspace_is_found_by_name_with_its_local_dependencies() {
        let builder_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let k = resolve(
            builder_dir,
            &KernelCrate::Package("eagle-test-kernels".into()),
        )
        .unwrap();
        assert_eq!(k.lib_name, "eagle_test_kernels");
        assert!(k.lib_root.ends_with("tests/kernels/src/lib.rs"), "{k:?}");
        let root = builder_dir.parent().unwrap();
        for dep in ["tests/kernels", "kernels-gpu", "kernels-gpu/macros"] {
            assert!(k.local_dirs.contains(&root.join(dep)), "{dep} not in {k:?}");
        }
        check_attributes(&k).unwrap();
        let e = resolve(builder_dir, &KernelCrate::Package("no-such".into())).unwrap_err();
        assert!(e.to_string().contains("no package of that name"), "{e}");
        let e = resolve(builder_dir, &KernelCrate::Path("nowhere".into())).unwrap_err();
        assert!(e.to_string().contains("no Cargo.toml"), "{e}");
    }

    #[test]
    fn a_complete_root_passes() {
        let (_d, k) = info(&format!(
            "//! docs\n{NO_STD}\n{GPU_ABI}\nuse hawk::prelude::*;\n"
        ));
        check_attributes(&k).unwrap();
    }

    #[test]
    fn a_missing_no_std_names_the_line() {
        let (_d, k) = info(&format!("{GPU_ABI}\n// #![no_std]\n"));
        let e = check_attributes(&k).unwrap_err().to_string();
        assert!(e.contains("lacks `#![no_std]`"), "{e}");
        assert!(e.contains("\n#![no_std]\n"), "{e}");
    }

    #[test]
    fn a_missing_gpu_abi_names_the_line() {
        let (_d, k) = info("#![no_std]\n");
        let e = check_attributes(&k).unwrap_err().to_string();
        assert!(e.contains(GPU_ABI), "{e}");
        assert!(!e.contains("lacks `#![no_std]"), "{e}");
    }
}
