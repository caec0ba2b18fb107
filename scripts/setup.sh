#!/usr/bin/env bash
# Installs what building and testing need, idempotently:
#  - the pinned nightly toolchain from rust-toolchain.toml (rust-src, llvm-tools,
#    llvm-bitcode-linker for the NVPTX build),
#  - ptxas (NVIDIA's PTX assembler) from PyPI into .venv, for the build's cubin and the PTX
#    test,
#  - libcudadevrt.a (CUDA device runtime, from the CUDA runtime wheel) into the same .venv,
#    for scripts/gpu-bundle.sh (the graph_while arm links it at run time on the GPU),
#  - GMP and MPFR (Debian's libgmp-dev, libmpfr-dev): the reference of hawk's math accuracy
#    tests (rug with gmp-mpfr-sys's use-system-libs, so no source build of GMP/MPFR),
#  - Open MPI (openmpi-bin, libopenmpi-dev) and libclang-dev (the `mpi` crate's bindgen):
#    eagle-shard's `mpi` feature, which every test build of the workspace turns on
#    (cli/tests/mpi.rs runs under mpirun). Users of eagle without `mpi` need none of it.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS="libgmp-dev libmpfr-dev openmpi-bin libopenmpi-dev libclang-dev"
# shellcheck disable=SC2086
if ! dpkg -s $DEBS >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $DEBS >/dev/null
fi

rustup toolchain install >/dev/null
rustc --version

PTXAS_PKG="nvidia-cuda-nvcc-cu12==12.9.86"
if ! ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas >/dev/null 2>&1; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check "$PTXAS_PKG"
fi
ls .venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas

CUDART_PKG="nvidia-cuda-runtime-cu12==12.9.79"
if ! ls .venv/lib/python3*/site-packages/nvidia/cuda_runtime/lib/libcudadevrt.a >/dev/null 2>&1; then
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps "$CUDART_PKG"
fi
ls .venv/lib/python3*/site-packages/nvidia/cuda_runtime/lib/libcudadevrt.a
