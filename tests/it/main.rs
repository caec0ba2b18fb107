//! Every integration test of the `eagle` package in one binary, a module per subject: each
//! kernel's host lane shapes are compiled once for all of them (they were once per test
//! file), and one link serves every test. Run one subject with a filter:
//! `cargo test --release --test it trajectory::`.

mod common;

mod bad_input;
mod contract;
mod device_emulated;
mod device_gpu;
mod events;
mod host_oscillator;
mod kernel_crate_path;
mod lorenz96;
mod math_device;
mod method_bits;
mod no_driver;
mod out_of_memory;
mod ptx;
mod register_table;
mod report;
mod sde;
mod stiff;
mod trajectory;
mod trust;
mod user_crate;
