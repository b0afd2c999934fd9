#!/usr/bin/env bash
# Rehearses the GPU machine's build (issue 33, item 6): scripts/gpu/build.sh in a Debian 13 root
# that has what the GPU machine has -- Python with a CUDA PyTorch 2.6 (python3-torch-cuda), the
# CUDA toolkit, CMake, ninja, g++ -- and no Debian -dev library (packages-gpu.txt); those come
# from .debs/ as on the GPU machine. Nothing runs on a GPU; afterwards the built tests that need
# none run on the CPU through build.sh's env.sh.
#   scripts/trixie/gpu-rehearsal.sh [BUILD_DIR]     # default build-trixie-gpu/ in the repo
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build="${1:-$trixie_repo/build-trixie-gpu}"
if ! ls "$trixie_repo"/.debs/*.deb > /dev/null 2>&1; then
  echo "gpu-rehearsal: fetching the Debian 12 .debs (scripts/gpu/fetch-debs.sh)"
  "$trixie_repo/scripts/gpu/fetch-debs.sh"
fi
trixie_ensure gpu
trixie_enter gpu
trixie_run python3 -c 'import torch; print("gpu-rehearsal: torch", torch.__version__,
  "cuda", torch.version.cuda, "cmake prefix", torch.utils.cmake_prefix_path)'
t0=$SECONDS
# Debian's toolkit installs nvcc as /usr/bin/nvcc: CUDA_HOME=/usr stands for /usr/local/cuda.
# Debian's python3-torch-cuda has no headers and no CMake config (a wheel's torch/include and
# torch/share/cmake): they are libtorch-cuda-dev's, with TorchConfig in /usr/lib/<triplet>/cmake.
trixie_run env CUDA_HOME=/usr DEBROOT=/tmp/debroot \
  TORCH_CMAKE_PREFIX=/usr/lib/x86_64-linux-gnu/cmake "$trixie_repo/scripts/gpu/build.sh" "$build"
echo "gpu-rehearsal: build.sh took $((SECONDS - t0)) s"
t1=$SECONDS
status=0
# The test programs run directly, not through ctest: env.sh puts Debian 12's libssl.so.3 (.debs,
# for libpq) first on the library path, and Debian 13's ctest (libcurl) then fails to start.
trixie_run bash -c 'source "$1/env.sh" && "$1/fathom" --help | head -n 3 || exit 1
  # The tensor tests scripts/gpu/check.sh runs on CUDA, here on the CPU.
  suites="Model.*:FusedAttention.*:Autocast.*:GradClip.*:LossScaler.*:Precision.*:Loss.*:TokenLosses.*"
  suites="$suites:CheckpointedLayers.*:TrainerTest.*"
  timeout 900 "$1/tests/core_tests" --gtest_brief=1 --gtest_filter="$suites"' _ "$build" \
  || status=$?
echo "gpu-rehearsal: CPU tests took $((SECONDS - t1)) s (exit $status)"
exit "$status"
