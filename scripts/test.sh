#!/usr/bin/env bash
# The test command: installs what is missing (scripts/setup.sh), checks formatting and
# lints (also with the `nvtx` feature), then runs every test of the workspace in release
# mode (SIMD code is slow unoptimized).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
# The NVTX ranges (feature `nvtx`) must keep compiling and lint-clean (a check build: cheap).
cargo clippy --workspace --all-targets --release --features eagle/nvtx -- -D warnings
# Test builds have MPI (a dev-dependency turns on eagle-shard's `mpi`); the libraries and
# programs without it must stay lint-clean too.
cargo clippy -p eagle-shard -p eagle-cli --release -- -D warnings
cargo test --workspace --release
