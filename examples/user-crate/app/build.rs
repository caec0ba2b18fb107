// Compiles the kernel crate to PTX (and a cubin when ptxas is found) for eagle::include_module!.
fn main() {
    if let Err(e) = eagle_build::KernelBuilder::new("../kernels")
        .arch("sm_90")
        .build()
    {
        panic!("{e}");
    }
}
