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
/// found) the folders where a pip install into a `.venv` would appear ([`venv_watch`]).
pub(crate) fn find(
    explicit: Option<&Path>,
    manifest_dir: &Path,
    out_dir: &Path,
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
        None => {
            for w in venv_watch(manifest_dir, out_dir) {
                println!("cargo:rerun-if-changed={}", w.display());
            }
        }
    }
    Ok(found)
}

/// With no ptxas found: the folders whose change may mean a pip-installed ptxas appeared, so
/// the next build picks it up while a build with nothing changed stays a no-op. For each
/// package or workspace folder from `manifest_dir` up (one with a `Cargo.toml`): its
/// `.venv` when there is one, else the folder itself, unless it holds `out_dir` (cargo
/// scans a watched folder recursively, and a target folder changes on every build). Never
/// a path that does not exist: cargo reruns a script that watches one on every build.
pub(crate) fn venv_watch(manifest_dir: &Path, out_dir: &Path) -> Vec<PathBuf> {
    manifest_dir
        .ancestors()
        .filter(|a| a.join("Cargo.toml").is_file())
        .filter_map(|a| {
            let venv = a.join(".venv");
            if venv.is_dir() {
                Some(venv)
            } else if out_dir.starts_with(a) {
                None
            } else {
                Some(a.to_path_buf())
            }
        })
        .collect()
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

/// `ptxas -arch=<arch> -O3 -v --split-compile 0 <ptx> -o <cubin>`: its `-v` report, or its
/// log as the error. `--split-compile 0` compiles the entries on every CPU (the same cubin
/// and report, byte for byte: 29 s -> 16 s for the test kernels on 2 cores).
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
        .args(["-O3", "-v", "--split-compile", "0"])
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

/// [`assemble`] through a cache in `cache`: a cubin and report made earlier from the same
/// PTX text, architecture and ptxas (its path, size and modification time) are copied
/// instead of running ptxas again (tens of seconds of CPU for a large module). The same
/// module is assembled again whenever the outer build's features or profile change (the
/// build script runs again) and by every other target folder that shares the nested one
/// (`EAGLE_PTX_TARGET_DIR`). A cache that cannot be read or written is passed by.
pub(crate) fn assemble_cached(
    ptxas: &Path,
    arch: &str,
    ptx: &Path,
    cubin: &Path,
    cache: &Path,
) -> Result<String, BuildError> {
    let Some(key) = cache_key(ptxas, arch, ptx) else {
        return assemble(ptxas, arch, ptx, cubin);
    };
    let (kept_cubin, kept_log) = (
        cache.join(format!("{key}.cubin")),
        cache.join(format!("{key}.log")),
    );
    if let (Ok(bytes), Ok(log)) = (
        std::fs::read(&kept_cubin),
        std::fs::read_to_string(&kept_log),
    ) && !bytes.is_empty()
        && std::fs::write(cubin, &bytes).is_ok()
    {
        return Ok(log);
    }
    let log = assemble(ptxas, arch, ptx, cubin)?;
    // Written under temporary names and renamed, so a reader never sees half a file;
    // the log last, as the mark that both are whole.
    let keep = || -> std::io::Result<()> {
        std::fs::create_dir_all(cache)?;
        let tmp = cache.join(format!("{key}.{}.tmp", std::process::id()));
        std::fs::copy(cubin, &tmp)?;
        std::fs::rename(&tmp, &kept_cubin)?;
        std::fs::write(&tmp, &log)?;
        std::fs::rename(&tmp, &kept_log)
    };
    let _ = keep();
    Ok(log)
}

/// 128 bits naming what a ptxas run depends on: the PTX text, the architecture, the flags
/// and the ptxas file (path, size, modification time). `None` when one cannot be read.
fn cache_key(ptxas: &Path, arch: &str, ptx: &Path) -> Option<String> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let text = std::fs::read(ptx).ok()?;
    let meta = std::fs::metadata(ptxas).ok()?;
    let modified = meta.modified().ok()?;
    let half = |salt: u64| {
        let mut h = DefaultHasher::new();
        (salt, &text, arch, "-O3 -v --split-compile 0").hash(&mut h);
        (ptxas, meta.len(), modified).hash(&mut h);
        h.finish()
    };
    Some(format!("{:016x}{:016x}", half(1), half(2)))
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
    fn without_a_ptxas_only_existing_folders_outside_the_target_are_watched() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        let app = ws.join("app");
        std::fs::create_dir_all(&app).unwrap();
        std::fs::write(ws.join("Cargo.toml"), b"").unwrap();
        std::fs::write(app.join("Cargo.toml"), b"").unwrap();
        // Target outside both: both package folders (a .venv may appear in either).
        let out = d.path().join("elsewhere/target/out");
        assert_eq!(venv_watch(&app, &out), [app.clone(), ws.clone()]);
        // Target inside the workspace: not the workspace folder; its .venv once it exists.
        let out = ws.join("target/release/build/app-1/out");
        assert_eq!(venv_watch(&app, &out), std::slice::from_ref(&app));
        std::fs::create_dir_all(ws.join(".venv")).unwrap();
        assert_eq!(venv_watch(&app, &out), [app.clone(), ws.join(".venv")]);
        assert!(venv_watch(&app, &out).iter().all(|p| p.exists()));
    }

    #[test]
    fn an_explicit_ptxas_that_does_not_exist_is_an_error() {
        let e = must_exist(Path::new("/nonexistent/ptxas")).unwrap_err();
        assert_eq!(e, BuildError::NoSuchPtxas("/nonexistent/ptxas".into()));
    }
}
