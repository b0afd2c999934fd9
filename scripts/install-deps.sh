#!/usr/bin/env bash
# Installs Fathom's build and run dependencies from Debian 12 packages. Skips apt entirely
# when everything is already installed. Needs root (uses sudo when not root).
#   --test  also the servers the tests run against: PostgreSQL 15 (scripts/pg-test-server.sh
#           starts a throwaway server per test run) and a single-node Slurm -- slurmctld,
#           slurmd, slurm-client, munge (scripts/slurm-test-server.sh starts a throwaway cluster);
#           and python3-pandas, python3-psycopg2 for the Python package's tests (python/)
#   --fuzz  also clang 14 and libFuzzer, for scripts/fuzz.sh
set -euo pipefail
with_test=""
with_fuzz=""
for arg in "$@"; do
  case $arg in
    --test) with_test=1 ;;
    --fuzz) with_fuzz=1 ;;
    *) echo "usage: $0 [--test] [--fuzz]" >&2; exit 2 ;;
  esac
done
packages=(
  build-essential cmake ninja-build pkg-config git
  libtorch-dev libopenblas0-pthread          # LibTorch 1.13 (CPU); OpenBLAS: ~25x faster BLAS
  libgloo-dev                                 # Gloo's headers: c10d's ProcessGroupGloo (docs/distributed.md)
  libyaml-cpp-dev libsqlite3-dev sqlite3 zlib1g-dev
  curl                                        # `fathom data get`: the corpora's downloads
  libxxhash-dev                               # XXH3: the content hash that keys prepared corpora
  libboost-math-dev                           # Student's t: intervals and Welch's test
  libpq-dev                                   # libpq: the PostgreSQL client library
  libsentencepiece-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev  # the desktop app (gui/), figures (plot/)
)
# --test: servers for the store and launcher tests; clang-format-14 for the layout check
[ -z "$with_test" ] || packages+=(postgresql-15 slurmctld slurmd slurm-client munge clang-format-14
                                     python3  # a local HTTP server for `data get`'s test
                                     python3-pandas python3-psycopg2  # python/fathom's tests
                                     python3-torch)  # docs/python.md's PyTorch example, run as written
[ -z "$with_fuzz" ] || packages+=(clang-14 libfuzzer-14-dev)
# python3-torch (Debian's PyTorch 1.13, CPU, ~180 MB beside libtorch, ~20 s to install) only
# for the tests: python/tests/test_example.py runs the example a user copies, which was
# otherwise never run; it is also bench/bench_vs_reference's PyTorch reference (by hand).
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
# postgresql-15's postinst would create and start a "main" cluster on port 5432; the tests start
# their own throwaway server (scripts/pg-test-server.sh), so turn that off before installing.
# Before postgresql-common is installed, pre-seed its createcluster.conf (UCF_FORCE_CONFFOLD below
# keeps it when the package installs its own); once installed, set the option in the existing file.
if [[ " ${missing[*]} " == *" postgresql-15 "* ]]; then
  cc=/etc/postgresql-common/createcluster.conf
  if ! dpkg-query -W -f='${Status}' postgresql-common 2>/dev/null | grep -q "install ok installed"; then
    $sudo mkdir -p "$(dirname "$cc")"
    echo "create_main_cluster = false" | $sudo tee "$cc" >/dev/null
  elif ! grep -Eq '^[[:space:]]*create_main_cluster[[:space:]]*=[[:space:]]*(false|off|no)' "$cc" 2>/dev/null; then
    $sudo sed -i '/^[[:space:]]*create_main_cluster[[:space:]]*=/d' "$cc"
    echo "create_main_cluster = false" | $sudo tee -a "$cc" >/dev/null
  fi
fi
$sudo apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive UCF_FORCE_CONFFOLD=1 apt-get install -y -q --no-install-recommends "${missing[@]}"
