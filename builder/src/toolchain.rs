//! The toolchain the NVPTX build needs: a nightly with `rust-src` (for `-Zbuild-std=core`),
//! `llvm-tools` and `llvm-bitcode-linker` (the nvptx64 linker), checked before building so
//! the error names the exact `rustup` command.

use crate::BuildError;
use std::path::Path;
use std::process::Command;

/// Checks the rustc cargo builds with (`$RUSTC`, as cargo sets it for build scripts).
pub(crate) fn check() -> Result<(), BuildError> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let run = |args: &[&str]| -> Result<String, BuildError> {
        let out = Command::new(&rustc)
            .args(args)
            .output()
            .map_err(|e| toolchain_err(format!("could not run {rustc}: {e}"), String::new()))?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let version = run(&["-vV"])?;
    let sysroot = run(&["--print", "sysroot"])?;
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_else(|_| "<toolchain>".into());
    diagnose(
        &version,
        &Path::new(sysroot.trim()).join("lib/rustlib"),
        &toolchain,
    )
}

/// The check itself, from `rustc -vV`'s output and the sysroot's `lib/rustlib`.
fn diagnose(version: &str, rustlib: &Path, toolchain: &str) -> Result<(), BuildError> {
    let release = version
        .lines()
        .find_map(|l| l.strip_prefix("release: "))
        .unwrap_or("?");
    if !(release.contains("nightly") || release.contains("dev")) {
        return Err(toolchain_err(
            format!(
                "the GPU build needs a nightly rustc (for -Zbuild-std and the gpu-kernel ABI), \
                 but this build uses {release}"
            ),
            "pin eagle's nightly in a rust-toolchain.toml next to your Cargo.toml:\n\n\
             [toolchain]\nchannel = \"nightly-2026-10-30\"\n\
             components = [\"rust-src\", \"llvm-tools\", \"llvm-bitcode-linker\"]\n"
                .into(),
        ));
    }
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap_or("x86_64-unknown-linux-gnu");
    let missing: Vec<&str> = [
        ("rust-src", rustlib.join("src/rust/library/core").is_dir()),
        ("llvm-tools", has_component(rustlib, "llvm-tools", host)),
        (
            "llvm-bitcode-linker",
            has_component(rustlib, "llvm-bitcode-linker", host),
        ),
    ]
    .into_iter()
    .filter(|(_, present)| !present)
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(toolchain_err(
        format!(
            "toolchain {toolchain} lacks {} (needed to compile kernels for nvptx64)",
            missing.join(", ")
        ),
        format!(
            "rustup component add {} --toolchain {toolchain}",
            missing.join(" ")
        ),
    ))
}

/// A rustup-installed component leaves `manifest-<name>[-preview][-<host>]` in rustlib; a
/// toolchain not managed by rustup has no such files and is trusted.
fn has_component(rustlib: &Path, name: &str, host: &str) -> bool {
    if !rustlib.join("multirust-channel-manifest.toml").exists() {
        return true;
    }
    [
        format!("manifest-{name}-{host}"),
        format!("manifest-{name}-preview-{host}"),
        format!("manifest-{name}"),
        format!("manifest-{name}-preview"),
    ]
    .iter()
    .any(|m| rustlib.join(m).exists())
}

fn toolchain_err(what: String, fix: String) -> BuildError {
    BuildError::Toolchain { what, fix }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NIGHTLY: &str =
        "rustc 1.101.0-nightly\nhost: x86_64-unknown-linux-gnu\nrelease: 1.101.0-nightly\n";

    #[test]
    fn a_stable_rustc_is_told_to_pin_the_nightly() {
        let d = tempfile::tempdir().unwrap();
        let e = diagnose("release: 1.95.0\n", d.path(), "stable").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("needs a nightly rustc") && msg.contains("1.95.0"),
            "{msg}"
        );
        assert!(msg.contains("channel = \"nightly-2026-10-30\""), "{msg}");
    }

    #[test]
    fn missing_components_are_named_in_the_rustup_command() {
        let d = tempfile::tempdir().unwrap();
        let rustlib = d.path();
        std::fs::write(rustlib.join("multirust-channel-manifest.toml"), "").unwrap();
        std::fs::write(
            rustlib.join("manifest-llvm-tools-preview-x86_64-unknown-linux-gnu"),
            "",
        )
        .unwrap();
        let msg = diagnose(NIGHTLY, rustlib, "nightly-x")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("rustup component add rust-src llvm-bitcode-linker --toolchain nightly-x"),
            "{msg}"
        );
        std::fs::create_dir_all(rustlib.join("src/rust/library/core")).unwrap();
        std::fs::write(
            rustlib.join("manifest-llvm-bitcode-linker-preview-x86_64-unknown-linux-gnu"),
            "",
        )
        .unwrap();
        diagnose(NIGHTLY, rustlib, "nightly-x").unwrap();
    }
}
