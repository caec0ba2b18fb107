#!/usr/bin/env bash
# Builds and runs examples/user-crate as a user would, outside this workspace: copies it to
# a folder (default: a fresh temporary one; `$1` to choose), points its path dependencies
# at this checkout, starts from this checkout's Cargo.lock, and runs `cargo run --release`
# there. The build's target folder is target/user-crate in this checkout (reused between
# runs; `CARGO_TARGET_DIR` to change). Prints `ptx: <path>` for the module it built.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${1:-$(mktemp -d)}"
mkdir -p "$DEST"
cp -r "$ROOT/examples/user-crate/." "$DEST/"
rm -rf "$DEST/target"
# ../../.. in the example's manifests is this checkout (the example sits two folders down).
sed -i "s|path = \"../../..|path = \"$ROOT|" "$DEST"/kernels/Cargo.toml "$DEST"/app/Cargo.toml
cp "$ROOT/Cargo.lock" "$DEST/Cargo.lock"
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
cargo run --release
ptx=$(find "$CARGO_TARGET_DIR/release/build" -path '*vdp-app*' -name 'vdp_kernels.ptx' -newer "$DEST/Cargo.toml" | head -1)
echo "ptx: $ptx"
