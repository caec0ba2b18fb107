//! Builds the test kernels (tests/kernels) for the GPU, as a user's build.rs does, and keeps
//! ptxas's `-v` report beside the module (`PTXAS_REPORT`).
fn main() {
    let built = eagle_build::KernelBuilder::new("../kernels")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let report = out.join("ptxas.log");
    std::fs::write(&report, built.ptxas_log.unwrap_or_default())
        .unwrap_or_else(|e| panic!("writing {}: {e}", report.display()));
    println!(
        "cargo:rustc-env=TEST_KERNELS_PTXAS_REPORT={}",
        report.display()
    );
}
