//! Builds the test kernels (tests/kernels) for the GPU, as a user's build.rs does.
fn main() {
    if let Err(e) = eagle_build::KernelBuilder::new("../kernels").build() {
        panic!("{e}");
    }
}
