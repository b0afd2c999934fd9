#!/usr/bin/env bash
# Run ON THE GPU MACHINE, in the repository root, with .debs/ carried (scripts/gpu/fetch-debs.sh):
# unpacks the Debian packages into /tmp/debroot (never into /), configures against the
# machine's PyTorch 2.x LibTorch (CUDA) and builds the headless targets: fathom, the tests and
# the benchmarks.
#   scripts/gpu/build.sh [BUILD_DIR]        # default /tmp/build-gpu
# Afterwards: source /tmp/build-gpu/env.sh (library paths) before running a program.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-/tmp/build-gpu}"
root="${DEBROOT:-/tmp/debroot}"
python="${PYTHON:-python3}"

ls "$repo"/.debs/*.deb > /dev/null || { echo "no .debs/: run scripts/gpu/fetch-debs.sh here and carry .debs" >&2; exit 1; }
mkdir -p "$root"
for f in "$repo"/.debs/*.deb; do dpkg -x "$f" "$root"; done
# Debian's absolute symlinks (zlib1g-dev: libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13)
# point into the machine's own /; re-point them into the unpacked tree.
find "$root" -type l | while read -r link; do
  target="$(readlink "$link")"
  if [[ "$target" == /* && -e "$root$target" ]]; then ln -sfn "$root$target" "$link"; fi
done
# The .pc files say prefix=/usr.
for pc in "$root"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
  sed -i "s|^prefix=/usr$|prefix=$root/usr|" "$pc"
done
arch_lib="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu"
pkg_config="$(command -v pkg-config || true)"
if [ -z "$pkg_config" ]; then
  # The unpacked pkg-config needs its libpkgconf; give it the path alone (a global
  # LD_LIBRARY_PATH would put Debian's zlib under cmake and the compiler).
  pkg_config="$root/pkg-config"
  printf '#!/bin/sh\nLD_LIBRARY_PATH="%s" exec "%s" "$@"\n' "$arch_lib" "$root/usr/bin/pkg-config" \
    > "$pkg_config"
  chmod +x "$pkg_config"
fi
export PKG_CONFIG_PATH="$root/usr/lib/x86_64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig"

# TORCH_CMAKE_PREFIX: where TorchConfig.cmake's Torch/ is when the Python package lacks it (Debian
# ships a wheel's torch/include and torch/share/cmake apart, in libtorch-cuda-dev: gpu-rehearsal.sh).
torch_prefix="${TORCH_CMAKE_PREFIX:-$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')}"
[ -f "$torch_prefix/Torch/TorchConfig.cmake" ] ||
  { echo "build: no $torch_prefix/Torch/TorchConfig.cmake (set TORCH_CMAKE_PREFIX)" >&2; exit 1; }
cxx11_abi="$("$python" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')"
torch_version="$("$python" -c 'import torch; print(torch.__version__)')"
# LibTorch 2.13 and later refuse C++17 in their headers.
cxx_standard="$("$python" -c 'import torch
major, minor = (int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
print(20 if (major, minor) >= (2, 13) else 17)')"
# The wheel's CUDA libraries (cuBLAS, cuDNN, ...) live in site-packages/nvidia/*/lib;
# libtorch_cuda.so needs them at link time (-rpath-link) and at run time.
nvidia_libs="$("$python" - <<'PY'
import glob, os, site
dirs = set()
for base in site.getsitepackages():
    dirs.update(glob.glob(os.path.join(base, "nvidia", "*", "lib")))
    dirs.update(glob.glob(os.path.join(base, "nvidia", "cu*", "lib")))
print(":".join(sorted(dirs)))
PY
)"
torch_lib="$torch_prefix/../../lib"
# NCCL's header and library: a wheel's come in the nvidia-nccl package (cmake/nccl.cmake probes
# whether the data-parallel ranks can use it; without it they reduce with Gloo).
nccl_root="${FATHOM_NCCL_ROOT:-$("$python" - <<'PY'
import glob, os, site
for base in site.getsitepackages():
    for d in glob.glob(os.path.join(base, "nvidia", "nccl")):
        print(d); raise SystemExit
PY
)}"
echo "build: torch $torch_version, CXX11 ABI $cxx11_abi, C++$cxx_standard, prefix $torch_prefix, NCCL ${nccl_root:-none}"

link_flags="-Wl,-rpath-link,$torch_lib"
[ -n "$nvidia_libs" ] && link_flags="$link_flags -Wl,-rpath-link,$nvidia_libs"
cuda_root="${CUDA_HOME:-/usr/local/cuda}"
# The default linker: the one a GPU lease has built with (gold, the CPU build's, is untried
# against the wheel's libraries, and a lease has no time for a failed link).
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATHOM_GOLD_LINKER=OFF \
  -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST -DFATHOM_TEST_SUITE_PROCESSES=OFF \
  -DFATHOM_BUILD_GUI=OFF -DFATHOM_BUILD_PLOTS=OFF \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$root/usr" \
  -DPKG_CONFIG_EXECUTABLE="$pkg_config" \
  -DCMAKE_CXX_FLAGS="-D_GLIBCXX_USE_CXX11_ABI=$cxx11_abi" \
  -DCMAKE_EXE_LINKER_FLAGS="$link_flags" \
  -DCUDAToolkit_ROOT="$cuda_root" -DCMAKE_CUDA_COMPILER="$cuda_root/bin/nvcc" \
  -DTORCH_CUDA_ARCH_LIST="9.0" -DFATHOM_NCCL_ROOT="$nccl_root"
# -k 0: one target that fails to compile does not stop the others (scripts/gpu/check.sh runs
# what was built and reports what was not).
status=0
# core_tests: every LibTorch test file (tests/CMakeLists.txt), the tensor tests among them.
# BUILD_TARGETS: fewer, where a lease has no time for the rest (scripts/gpu/lease.sh).
# shellcheck disable=SC2086
ninja -k 0 -C "$build" ${BUILD_TARGETS:-fathom fathom-bench core_tests} \
  || status=$?

# LD_PRELOAD: a PyTorch wheel's libtorch.so carries and exports its own copies of some libstdc++
# functions (std::filesystem::remove_all, ...), which crash through a null pointer when a
# program's call binds to them; the dynamic linker takes the first library defining a symbol,
# and libtorch.so comes before libstdc++ in the programs' list. Preloaded, libstdc++ wins.
libstdcxx="$(g++ -print-file-name=libstdc++.so.6)"
cat > "$build/env.sh" <<ENV
export LD_PRELOAD="$libstdcxx\${LD_PRELOAD:+:\$LD_PRELOAD}"
export LD_LIBRARY_PATH="$arch_lib:$torch_lib${nvidia_libs:+:$nvidia_libs}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
ENV
echo "build: done (ninja exit $status); source $build/env.sh before running"
exit "$status"
