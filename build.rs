//! Compiles the built-in kernels (`kernels-gpu`, crate `hawk`, with its default `builtin`
//! feature) to PTX, and to a cubin when a `ptxas` is found, with the same builder users call
//! from their own `build.rs` (`eagle-build`); `eagle::ptx` embeds the result.
//!
//! Environment (read by the builder): `EAGLE_PTX_ARCH` picks the GPU architecture (default
//! `sm_90`); `EAGLE_SKIP_PTX=1` skips the PTX build (then `eagle::ptx::PTX` and `CUBIN` are
//! `None`); `EAGLE_PTXAS` names the `ptxas` to use (`off`: none), else it is looked for on
//! `PATH`, in CUDA's folders and in the project's `.venv` (`scripts/setup.sh`). Without a
//! `ptxas`, `CUBIN` is `None` and the next build looks again. ptxas's `-v` report (per
//! entry: registers, stack, spills) is kept beside the cubin: `eagle::ptx::PTXAS_REPORT`.

fn main() {
    let built = match eagle_build::KernelBuilder::new("kernels-gpu").build() {
        Ok(b) => b,
        Err(e) => panic!("\n{e}\n(set EAGLE_SKIP_PTX=1 to build without GPU kernels)"),
    };
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let report = out.join("hawk.ptxas.log");
    std::fs::write(&report, built.ptxas_log.unwrap_or_default())
        .unwrap_or_else(|e| panic!("writing {}: {e}", report.display()));
    println!("cargo:rustc-env=EAGLE_PTXAS_REPORT={}", report.display());
}
