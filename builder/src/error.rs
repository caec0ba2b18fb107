//! Why a kernel build failed, and what to do about it.

use std::path::PathBuf;

/// A failed kernel build. Its `Display` says what went wrong and what to do.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// Called outside a build script (a variable cargo sets for build scripts is missing).
    #[error(
        "eagle-build runs from a build.rs: `{0}` is not set (call KernelBuilder::build from build.rs)"
    )]
    NotInBuildScript(String),
    /// The toolchain is not a nightly, or lacks a component the NVPTX build needs.
    #[error("{what}\n  fix: {fix}")]
    Toolchain {
        /// What is missing.
        what: String,
        /// The exact command or file to add.
        fix: String,
    },
    /// The kernel crate could not be found or read.
    #[error("kernel crate {krate}: {why}")]
    KernelCrate {
        /// The path or package given.
        krate: String,
        /// What went wrong.
        why: String,
    },
    /// The kernel crate's root lacks an attribute the GPU build needs.
    #[error(
        "kernel crate `{krate}` ({root}) lacks `{missing}`; add these lines at the top of it:\n\n{lines}\n"
    )]
    MissingAttributes {
        /// The crate.
        krate: String,
        /// Its root source file.
        root: PathBuf,
        /// What is missing.
        missing: String,
        /// The lines to add.
        lines: String,
    },
    /// The NVPTX build failed.
    #[error("the GPU build of kernel crate `{krate}` failed{hint}\n--- cargo's output ---\n{log}")]
    Cargo {
        /// The crate.
        krate: String,
        /// What the log suggests ("" when nothing specific).
        hint: String,
        /// cargo's stderr.
        log: String,
    },
    /// The PTX holds no helper kernels: the crate does not depend on hawk, or not on its
    /// device module.
    #[error(
        "the PTX of kernel crate `{krate}` has no hawk helper kernels (hawk_count_chunks, ...): \
         the crate must depend on `hawk` and declare its kernels with `#[hawk::kernel]`"
    )]
    NoHelpers {
        /// The crate.
        krate: String,
    },
    /// ptxas could not assemble the PTX.
    #[error("ptxas ({ptxas}) failed on {ptx} for {arch}:\n{log}")]
    Ptxas {
        /// The ptxas run.
        ptxas: PathBuf,
        /// The PTX file.
        ptx: PathBuf,
        /// The architecture.
        arch: String,
        /// ptxas's output.
        log: String,
    },
    /// A ptxas named explicitly (`KernelBuilder::ptxas`, `$EAGLE_PTXAS`) does not exist.
    #[error(
        "ptxas {0} does not exist (fix the path, or set EAGLE_PTXAS=off to build without a cubin)"
    )]
    NoSuchPtxas(PathBuf),
    /// A file could not be read or written.
    #[error("{0}: {1}")]
    Io(PathBuf, String),
}

/// A hint for a failed NVPTX build, from cargo's log ("" when nothing specific).
pub(crate) fn hint_for(log: &str) -> String {
    if log.contains("can't find crate for `std`") {
        ": the kernel crate (or one of its dependencies) uses `std`; kernel crates are \
         `#![no_std]` (core only)"
            .into()
    } else if log.contains("\"gpu-kernel\" ABI is experimental") || log.contains("abi_gpu_kernel") {
        ": add `#![cfg_attr(target_arch = \"nvptx64\", feature(abi_gpu_kernel))]` at the top \
         of the kernel crate's lib.rs"
            .into()
    } else if log.contains("only accepted on the nightly") {
        ": the NVPTX build needs a nightly toolchain (see rust-toolchain.toml in eagle's README)"
            .into()
    } else if log.contains("llvm-bitcode-linker") {
        ": the toolchain lacks llvm-bitcode-linker (`rustup component add llvm-bitcode-linker \
         llvm-tools`)"
            .into()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_the_fix() {
        assert!(hint_for("error[E0463]: can't find crate for `std`").contains("#![no_std]"));
        assert!(
            hint_for("error[E0658]: the extern \"gpu-kernel\" ABI is experimental")
                .contains("feature(abi_gpu_kernel)")
        );
        assert_eq!(hint_for("error: something else"), "");
    }
}
