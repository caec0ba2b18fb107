//! Finding NVIDIA's PTX assembler and assembling a cubin with it.

use crate::BuildError;
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where [`find`] looks, for messages.
pub(crate) const WHERE: &str = "EAGLE_PTXAS, PATH, CUDA_HOME, CUDA_PATH, /usr/local/cuda, \
                                a pip nvidia-cuda-nvcc-cu12 in VIRTUAL_ENV, .venv or ~/.local";

/// The ptxas to use: `explicit`, else `$EAGLE_PTXAS` (`off`: none), else the first found on
/// `PATH`, in CUDA's folders or in a pip install. Prints the `rerun-if-*` lines that make
/// cargo rerun the build script when the answer could change: the file found, or (none
/// found) the places a later install would appear.
pub(crate) fn find(
    explicit: Option<&Path>,
    manifest_dir: &Path,
) -> Result<Option<PathBuf>, BuildError> {
    println!("cargo:rerun-if-env-changed=EAGLE_PTXAS");
    if let Some(p) = explicit {
        return must_exist(p);
    }
    match env::var("EAGLE_PTXAS") {
        Ok(v) if v == "off" => return Ok(None),
        Ok(v) if !v.is_empty() => return must_exist(Path::new(&v)),
        _ => {}
    }
    for var in ["PATH", "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "HOME"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let found = candidates(manifest_dir).into_iter().find(|p| p.is_file());
    match &found {
        Some(p) => println!("cargo:rerun-if-changed={}", p.display()),
        // A path that does not exist makes cargo rerun the build script on every build, so
        // a ptxas installed later (e.g. by `pip install` into .venv) is picked up.
        None => println!(
            "cargo:rerun-if-changed={}",
            manifest_dir.join(".venv/bin/ptxas-not-found").display()
        ),
    }
    Ok(found)
}

fn must_exist(p: &Path) -> Result<Option<PathBuf>, BuildError> {
    let resolved = if p.components().count() == 1 {
        on_path(p.as_os_str().to_str().unwrap_or_default())
    } else {
        Some(p.to_path_buf()).filter(|p| p.is_file())
    };
    match resolved {
        Some(r) => {
            println!("cargo:rerun-if-changed={}", r.display());
            Ok(Some(r))
        }
        None => Err(BuildError::NoSuchPtxas(p.to_path_buf())),
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    env::split_paths(&env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Every place a ptxas may be, in order of preference.
fn candidates(manifest_dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = on_path("ptxas").into_iter().collect();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(d) = env::var_os(var) {
            out.push(PathBuf::from(d).join("bin/ptxas"));
        }
    }
    out.push("/usr/local/cuda/bin/ptxas".into());
    let mut envs: Vec<PathBuf> = env::var_os("VIRTUAL_ENV")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    envs.extend(manifest_dir.ancestors().map(|a| a.join(".venv")));
    if let Some(home) = env::var_os("HOME") {
        envs.push(PathBuf::from(home).join(".local"));
    }
    for e in envs {
        out.extend(pip_ptxas(&e));
    }
    out
}

/// `<prefix>/lib/python3.*/site-packages/nvidia/cuda_nvcc/bin/ptxas`, newest Python first.
fn pip_ptxas(prefix: &Path) -> Vec<PathBuf> {
    let Ok(dirs) = std::fs::read_dir(prefix.join("lib")) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = dirs
        .flatten()
        .filter(|d| d.file_name().to_string_lossy().starts_with("python3"))
        .map(|d| d.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas"))
        .collect();
    found.sort();
    found.reverse();
    found
}

/// `ptxas -arch=<arch> -O3 -v <ptx> -o <cubin>`: its `-v` report, or its log as the error.
pub(crate) fn assemble(
    ptxas: &Path,
    arch: &str,
    ptx: &Path,
    cubin: &Path,
) -> Result<String, BuildError> {
    let err = |log: String| BuildError::Ptxas {
        ptxas: ptxas.to_path_buf(),
        ptx: ptx.to_path_buf(),
        arch: arch.into(),
        log,
    };
    let res = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .args(["-O3", "-v"])
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output()
        .map_err(|e| err(format!("could not run it: {e}")))?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&res.stderr),
        String::from_utf8_lossy(&res.stdout)
    );
    if res.status.success() {
        Ok(log)
    } else {
        let _ = std::fs::write(cubin, b"");
        Err(err(format!("exited with {}:\n{log}", res.status)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pip_install_in_a_venv_beside_the_crate_is_a_candidate() {
        let d = tempfile::tempdir().unwrap();
        let bin = d
            .path()
            .join(".venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("ptxas"), b"").unwrap();
        assert_eq!(pip_ptxas(&d.path().join(".venv")), [bin.join("ptxas")]);
        let crate_dir = d.path().join("app");
        assert!(candidates(&crate_dir).contains(&bin.join("ptxas")));
    }

    #[test]
    fn an_explicit_ptxas_that_does_not_exist_is_an_error() {
        let e = must_exist(Path::new("/nonexistent/ptxas")).unwrap_err();
        assert_eq!(e, BuildError::NoSuchPtxas("/nonexistent/ptxas".into()));
    }
}
