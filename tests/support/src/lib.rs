//! eagle's test kernels and their GPU module (built by this crate's build.rs).

pub use eagle_test_kernels::*;

/// The test kernels' GPU module, for `module.deploy(kernel, target)`.
pub const MODULE: eagle::Module<'static> = eagle::include_module!();

/// `ptxas -v`'s report on [`MODULE`]'s PTX at build time (empty without a ptxas).
pub const PTXAS_REPORT: &str = include_str!(env!("TEST_KERNELS_PTXAS_REPORT"));
