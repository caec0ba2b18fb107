#!/usr/bin/env bash
# The test command: installs what is missing (scripts/setup.sh), checks formatting, then
# builds, lints and runs every test of the workspace in release mode (SIMD code is slow
# unoptimized), and lints what the tests do not build. Each phase prints its wall time.
#
# On 2 cores most of the time is compiling, so the work runs side by side where it can:
#  - in the background from the start: the user-crate example's build (target/user-crate)
#    and the check-mode lints of what the test build does not compile (target/lint);
#  - the test build, which lints the workspace's crates as it compiles them;
#  - the doctests, in the background while the test binaries run (cargo holds the build
#    folder's lock only while it compiles).
# A background job's log is printed, and its failure fails the command, at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
phase() { echo "== $1: $((SECONDS - t0)) s so far"; }
scripts/setup.sh
phase setup
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

# The test build's features: the card (eagle-cli's `card`: its module, binary, bench and
# tests) with its workloads' portable host loops alone (`portable-loops`: a third of the
# card's build; the tests check the rows' bits, which every loop gives alike, while the
# AVX2 and AVX-512 loops are checked in the `it` tests on kernels that differ in what
# matters; `cargo bench` builds every loop), and MPI (dev-dependencies turn it on).
FEATURES=eagle-cli/card,eagle-cli/portable-loops
# The test build leaves out debug info and the release profile's local ThinLTO across
# codegen units (a sixth of the `it` binary's build): neither changes a bit of what the
# tests compute.
PROFILE=(--config profile.release.debug=false --config 'profile.release.lto="off"')

# The user-crate test (tests/it/user_crate.rs) builds examples/user-crate, with eagle and
# its dependencies, into target/user-crate, from the script's folder target/user-crate-src.
# That build runs now, in the background, so the test later finds the example built and
# runs it. Its outcome does not count (the test checks everything); its log is
# target/user-crate-warm.log.
scripts/user-crate.sh >target/user-crate-warm.log 2>&1 &
warm=$!
jobs_to_stop+=("$warm")

# What the test build does not compile, linted in check mode in a target folder of its own
# (so it never waits for the test build's lock): the examples and benches; the libraries
# and the main job without the test features; the NVTX ranges (feature `nvtx`). A check
# needs no GPU module (EAGLE_SKIP_PTX=1: the module is empty, the code the same).
lint_others() {
  export CARGO_TARGET_DIR=target/lint EAGLE_SKIP_PTX=1
  cargo clippy --workspace --examples --benches --release --features "$FEATURES" -- -D warnings
  cargo clippy -p eagle-shard -p eagle-cli --release -- -D warnings
  cargo clippy -p eagle-runtime --release --features nvtx -- -D warnings
}
lint_others >target/lint-others.log 2>&1 &
lints=$!
jobs_to_stop+=("$lints")

cargo fmt --all -- --check

# The lints ride on the test build: clippy's driver, as the workspace's compiler wrapper,
# lints each workspace crate (libraries, binaries, build scripts, tests) as it compiles it,
# with warnings denied, so nothing is type-checked twice. As command-line settings, not
# variables, they stay out of the nested builds the tests run (the user's crate, trybuild)
# and the GPU builds (eagle-build also clears wrappers and flags for those).
CLIPPY=(--config "build.rustc-workspace-wrapper=\"$(rustup which clippy-driver)\""
  --config 'build.rustflags=["-Dwarnings"]')
# eagle-cli's card (every workload) is the costliest crate to build after the `it` binary;
# it is built at opt-level 1 (the tests check its results, which are the same bits at any
# opt-level: Rust never reassociates or fuses floating point); `cargo card` builds it at
# the release profile's opt-level 3. Examples and benches are linted above, not built.
TEST=(cargo test --workspace --release --features "$FEATURES" "${PROFILE[@]}" "${CLIPPY[@]}"
  --config 'profile.release.package.eagle-cli.opt-level=1')
"${TEST[@]}" --lib --bins --tests --no-run
phase "test build and its lints"

# The doctests (rustdoc compiles them on one core) beside the test binaries' runs.
"${TEST[@]}" --doc >target/doctests.log 2>&1 &
docs=$!
jobs_to_stop+=("$docs")
"${TEST[@]}" --lib --bins --tests
phase tests

# The background jobs: each one's log, then its outcome.
finish() { # finish NAME PID LOG
  local rc=0
  wait "$2" || rc=$?
  echo "== $1 (log: $3)"
  cat "$3"
  if [ "$rc" -ne 0 ]; then
    echo "$1 failed (exit $rc)"
    exit "$rc"
  fi
  phase "$1"
}
finish doctests "$docs" target/doctests.log
finish "lints of examples, benches and other features" "$lints" target/lint-others.log
wait "$warm" 2>/dev/null || echo "(the background user-crate build failed: see target/user-crate-warm.log)"
