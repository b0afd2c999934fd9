#!/usr/bin/env bash
# From a fresh clone: install dependencies, build, run every test (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test   # + PostgreSQL 15 and Slurm for the store and launcher tests
scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 900
