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
# The user-crate test (tests/it/user_crate.rs) builds examples/user-crate, with eagle and
# its dependencies, into target/user-crate, from the script's folder target/user-crate-src.
# Most of the workspace's build is one crate at a time (eagle-cli's card above all), which
# leaves a core idle: that build runs there now, in the background, so the test later finds
# the example built and runs it. Its outcome does not count (the test checks everything);
# its log is target/user-crate-warm.log.
# (Measured: held back until the lint pass had built the GPU modules, this build competed
# with the `it` binary's instead, and the test build took 713 s, not 472 s.)
mkdir -p target
# Background jobs, with their children (cargo, rustc), are stopped if the command exits early.
jobs_to_stop=()
stop_tree() {
  local p
  for p in "$@"; do
    # shellcheck disable=SC2046
    stop_tree $(pgrep -P "$p" || true)
    kill "$p" 2>/dev/null || true
  done
}
trap 'stop_tree "${jobs_to_stop[@]}"' EXIT
scripts/user-crate.sh >target/user-crate-warm.log 2>&1 &
warm=$!
jobs_to_stop+=("$warm")
cargo fmt --all -- --check
# The test build's features: the card (eagle-cli's `card`: its module, binary, bench and
# tests) with its workloads' portable host loops alone (`portable-loops`: a third of the
# card's build; the tests check the rows' bits, which every loop gives alike, while the
# AVX2 and AVX-512 loops are checked in the `it` tests on kernels that differ in what
# matters; `cargo bench` builds every loop), and MPI (dev-dependencies turn it on).
FEATURES=eagle-cli/card,eagle-cli/portable-loops
# The test build leaves out debug info and the release profile's local ThinLTO across
# codegen units (a sixth of the `it` binary's build): neither changes a bit of what the
# tests compute. The lint passes take the same settings, so that the build scripts they
# compile and run are the test build's.
PROFILE=(--config profile.release.debug=false --config 'profile.release.lto="off"')
# One lint pass over every target, with the test build's features (so the build scripts it
# runs, eagle's GPU module above all, serve the test build too). It also runs the GPU builds
# (eagle's module, then the test kernels', about 3 minutes of one core with ptxas) before
# the test build, whose longest crate, the `it` binary, waits for them. (Clippy's driver as
# the test build's compiler wrapper, linting as it builds, was tried: cargo then started the
# GPU builds late, and the whole took 1086 s on a fresh clone against 1048 s this way.)
cargo clippy --workspace --all-targets --release --features "$FEATURES" "${PROFILE[@]}" -- -D warnings
# The libraries and the main job without them, and the NVTX ranges (feature `nvtx`), must
# stay lint-clean too (checks of a few crates: cheap).
cargo clippy -p eagle-shard -p eagle-cli --release "${PROFILE[@]}" -- -D warnings
cargo clippy -p eagle-runtime --release --features nvtx "${PROFILE[@]}" -- -D warnings
phase lints
# eagle-cli's card (every workload) is the costliest crate to build; only eagle-cli's own
# tests use it, so it builds beside the `it` binary, not before it. Here it is built at
# opt-level 1 (the tests check its results, which are the same bits at any opt-level: Rust
# never reassociates or fuses floating point); `cargo card` builds it at the release
# profile's opt-level 3. Examples are linted above and not built here: their own targets,
# without --doc (which cannot be mixed with target selection), then the doctests.
TEST=(cargo test --workspace --release --features "$FEATURES" "${PROFILE[@]}"
  --config 'profile.release.package.eagle-cli.opt-level=1')
"${TEST[@]}" --lib --bins --tests --no-run
phase "test build"
# The doctests in the background while the test binaries run: rustdoc compiles eagle's on
# one core (about a minute), and cargo holds the build folder's lock only while it compiles.
# Their log is printed after the test binaries' output.
"${TEST[@]}" --doc >target/doctests.log 2>&1 &
docs=$!
jobs_to_stop+=("$docs")
"${TEST[@]}" --lib --bins --tests
phase tests
rc=0
wait "$docs" || rc=$?
echo "== doctests (log: target/doctests.log)"
cat target/doctests.log
[ "$rc" -eq 0 ] || { echo "the doctests failed (exit $rc)"; exit "$rc"; }
phase doctests
wait "$warm" 2>/dev/null || echo "(the background user-crate build failed: see target/user-crate-warm.log)"
