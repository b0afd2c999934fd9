#!/usr/bin/env bash
# Installs Fathom's build and run dependencies from Debian 12 packages. Skips apt entirely
# when everything is already installed. Needs root (uses sudo when not root).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libtorch-dev libopenblas0-pthread          # LibTorch 1.13 (CPU); OpenBLAS: ~25x faster BLAS
  libyaml-cpp-dev libsqlite3-dev sqlite3 zlib1g-dev
  libsentencepiece-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev  # the desktop app (gui/), figures (plot/)
)
# Not installed here: python3-torch (Debian's PyTorch 1.13, CPU), needed only to run the
# PyTorch reference of bench/bench_vs_reference (bench/reference/train_step.py, by hand).
# It adds ~180 MB (32 packages beside libtorch) that building, testing and training never use:
#   apt-get install -y python3-torch
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
