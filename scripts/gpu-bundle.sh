#!/usr/bin/env bash
# Builds, on this (build) machine, everything the GPU check needs and gathers it into one
# small folder, target/gpu-bundle/ (and target/gpu-bundle.tar.gz): the device test
# binaries, the seed page (profile-your-run, built with NVTX ranges: `--features nvtx`, for
# `nsys profile`), the user-crate example's app (vdp-app), the bench binary, scripts/gpu-check.sh, and
# libcudadevrt.a when one is found (the graph_while arm's condition setter is loaded as
# plain PTX, the driver resolving cudaGraphSetConditional; only if that load fails is it
# linked with libcudadevrt.a; without either, that arm falls back to graph and says so). Copy the folder to the GPU machine and run
# `./gpu-check.sh [log-dir]` there: no Rust and no network needed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null  # toolchain, ptxas and libcudadevrt.a (graph_while's fallback)
B=target/gpu-bundle
rm -rf "$B" && mkdir -p "$B/bin"

tests_json=$(cargo test --release --no-run --message-format=json \
  --test it 2>/dev/null)
echo "$tests_json" | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        shutil.copy(m["executable"], sys.argv[1] + "/bin/" + m["target"]["name"])
' "$B"
# With NVTX ranges around the phases (no-ops where libnvToolsExt is missing).
cargo build --release -p eagle-cli --bin profile-your-run --features nvtx
cp target/release/profile-your-run "$B/bin/"
# A user's crate (examples/user-crate: its own kernel crate built by eagle-build), so the GPU
# loads a user's cubin.
scripts/user-crate.sh >/dev/null
cp target/user-crate/release/vdp-app "$B/bin/"
bench_json=$(cargo bench --workspace --features eagle-cli/card --no-run --message-format=json 2>/dev/null || true)
echo "$bench_json" | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        shutil.copy(m["executable"], sys.argv[1] + "/bin/bench-" + m["target"]["name"])
' "$B"
command -v strip >/dev/null && strip "$B"/bin/* || true
cp scripts/gpu-check.sh "$B/"
for lib in "${EAGLE_CUDADEVRT:-}" "${CUDA_HOME:-/nonexistent}/lib64/libcudadevrt.a" \
           /usr/local/cuda/lib64/libcudadevrt.a .venv/lib/python3*/site-packages/nvidia/cuda_runtime/lib/libcudadevrt.a; do
  if [ -n "$lib" ] && [ -f "$lib" ]; then cp "$lib" "$B/bin/libcudadevrt.a"; break; fi
done
[ -f "$B/bin/libcudadevrt.a" ] || echo "note: no libcudadevrt.a found; graph_while will fall back to graph on the GPU"
tar -C target -czf target/gpu-bundle.tar.gz gpu-bundle
du -sh "$B" target/gpu-bundle.tar.gz
ls -l "$B/bin"
