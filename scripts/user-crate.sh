#!/usr/bin/env bash
# Builds and runs examples/user-crate as a user would, outside this workspace: copies it to
# a folder (default: target/user-crate-src in this checkout; `$1` to choose), points its
# path dependencies at this checkout, starts from this checkout's Cargo.lock, and runs
# `cargo run --release` there. The build's target folder is target/user-crate in this
# checkout (reused between runs; `CARGO_TARGET_DIR` to change). Prints `ptx: <path>` for the
# module it built.
#
# A file already in the folder with the same content is left as it is (its time stamp too),
# so a second run into the same folder rebuilds only what changed in the example or in this
# checkout: the test command builds the example in the background while the workspace
# builds, and the user-crate test's run of this script then finds it built.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${1:-$ROOT/target/user-crate-src}"
mkdir -p "$DEST"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
cp -r "$ROOT/examples/user-crate/." "$STAGE/"
rm -rf "$STAGE/target"
# ../../.. in the example's manifests is this checkout (the example sits two folders down).
sed -i "s|path = \"../../..|path = \"$ROOT|" "$STAGE"/kernels/Cargo.toml "$STAGE"/app/Cargo.toml
cp "$ROOT/Cargo.lock" "$STAGE/Cargo.lock"
(cd "$STAGE" && find . -type f) | while IFS= read -r f; do
  if ! cmp -s "$STAGE/$f" "$DEST/$f"; then
    mkdir -p "$(dirname "$DEST/$f")"
    cp "$STAGE/$f" "$DEST/$f"
  fi
done
# Files the example no longer has go too.
(cd "$DEST" && find . -type f) | while IFS= read -r f; do
  [ -e "$STAGE/$f" ] || rm -f "$DEST/$f"
done
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target/user-crate}"
# A check of what the example computes, not of its speed: opt-level 1 and no debug info by
# default (a fraction of opt-level 3's build time, and the same bits: Rust never fuses or
# reassociates floating point). Set both variables to build as `cargo run --release` would.
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}"
export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-false}"
# The GPU build of eagle's built-in kernels is this checkout's own (target/eagle-build):
# compiled and assembled once for both.
export EAGLE_PTX_TARGET_DIR="${EAGLE_PTX_TARGET_DIR:-$ROOT/target/eagle-build}"
# The pip ptxas of scripts/setup.sh, when there (the builder also looks on PATH and in CUDA's folders).
if [ -d "$ROOT/.venv" ] && [ -z "${VIRTUAL_ENV:-}" ]; then export VIRTUAL_ENV="$ROOT/.venv"; fi
cd "$DEST"
echo "user crate in $DEST (target: $CARGO_TARGET_DIR)"
# The app's build script's output folder (where its build put the module), from cargo's
# messages: the build is the run's, which then only runs the app.
json="$(cargo build --release --message-format=json-render-diagnostics)"
out_dir="$(echo "$json" | grep '"reason":"build-script-executed"' | grep 'vdp-app' |
  sed -E 's/.*"out_dir":"([^"]*)".*/\1/')"
cargo run --release
echo "ptx: $out_dir/vdp_kernels.ptx"
