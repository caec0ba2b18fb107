#!/usr/bin/env bash
# Installs what building and testing need, idempotently:
#  - the pinned nightly toolchain from rust-toolchain.toml (rust-src, llvm-tools,
#    llvm-bitcode-linker for the NVPTX build),
#  - ptxas (NVIDIA's PTX assembler) from PyPI into .venv, for the PTX test.
set -euo pipefail
cd "$(dirname "$0")/.."

rustup toolchain install >/dev/null
rustc --version

PTXAS_PKG="nvidia-cuda-nvcc-cu12==12.9.86"
if ! ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas >/dev/null 2>&1; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "$PTXAS_PKG"
fi
ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas
