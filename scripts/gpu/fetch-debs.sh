#!/usr/bin/env bash
# Run HERE (Debian 12, amd64, with apt): downloads the Debian 12 .deb files that the headless
# build needs and that the GPU machine lacks (it has CUDA, PyTorch 2.x, CMake, ninja and a
# compiler, but none of these libraries, and cannot reach a package registry). They go to
# .debs/ (ignored by .gitignore), which the device tool's `carry` takes along:
#   scripts/gpu/fetch-debs.sh [DIR]           # DIR default: <repo>/.debs
# Then on the GPU machine: scripts/gpu/build.sh (see docs/performance.md, "GPU").
#
# What CMakeLists.txt finds: yaml-cpp, SQLite3, CLI11, nlohmann_json, ZLIB, Boost, sentencepiece
# (pkg-config) and its sentencepiece_train library, GTest (tests). LibTorch comes from the
# machine's PyTorch. The runtime libraries are included beside each -dev package because the
# -dev symlinks (libyaml-cpp.so -> libyaml-cpp.so.0.7, ...) point at them; pkg-config in case
# the machine has none.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:-$repo/.debs}"
packages=(
  libyaml-cpp-dev libyaml-cpp0.7
  libsqlite3-dev libsqlite3-0
  libcli11-dev nlohmann-json3-dev
  zlib1g-dev zlib1g
  libsentencepiece-dev libsentencepiece0
  libxxhash-dev libxxhash0                   # XXH3: the keys of prepared corpora
  libgtest-dev googletest
  libboost1.74-dev                           # Boost.Math headers (Student's t) and Boost's CMake config
  pkg-config pkgconf pkgconf-bin libpkgconf3
  # The PostgreSQL store backend's libpq, with its libraries (apt-cache depends --recurse libpq5,
  # less libc and libgcc): the GPU machine's own versions differ in soname (libldap 2.6, ...).
  libpq-dev libpq5 libssl3 libldap-2.5-0 libsasl2-2 libsasl2-modules-db libgssapi-krb5-2
  libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1 libgnutls30 libnettle8
  libhogweed6 libgmp10 libidn2-0 libunistring2 libtasn1-6 libp11-kit0 libffi8 libdb5.3
)
mkdir -p "$dir"
cd "$dir"
rm -f ./*.deb
apt-get download "${packages[@]}"
echo "fetch-debs: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in $dir"
