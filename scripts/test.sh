#!/usr/bin/env bash
# The test command: installs what is missing (scripts/setup.sh), checks formatting and
# lints, then runs every test of the workspace in release mode (SIMD code is slow
# unoptimized). Each phase prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
phase() { echo "== $1: $((SECONDS - t0)) s so far"; }
scripts/setup.sh
phase setup
cargo fmt --all -- --check
# One lint pass over every target, with the NVTX ranges (feature `nvtx`) compiled in.
cargo clippy --workspace --all-targets --release --features eagle/nvtx -- -D warnings
# Test builds have MPI and the card (dev-dependencies turn them on); the libraries and the
# main job without them must stay lint-clean too (a check of two crates: cheap).
cargo clippy -p eagle-shard -p eagle-cli --release -- -D warnings
phase lints
cargo test --workspace --release
phase tests
