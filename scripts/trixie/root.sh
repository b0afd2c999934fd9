#!/usr/bin/env bash
# Makes (or reuses) a cached Debian 13 root and optionally runs a command in it, in the repo:
#   scripts/trixie/root.sh cpu                         # LibTorch 2.6 (CPU), Qt 6, python3-torch
#   scripts/trixie/root.sh cpu python3 -c 'import torch; print(torch.__version__)'
#   scripts/trixie/root.sh cuda nvcc --version         # LibTorch 2.6 with CUDA + toolkit
# Roots live in $FATHOM_TRIXIE_CACHE (default /var/cache/fathom); see scripts/trixie/lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 cpu|cuda|gpu [COMMAND...]" >&2; exit 2; }
kind="$1"
shift
trixie_ensure "$kind"
[ $# -gt 0 ] || exit 0
trixie_enter "$kind"
trixie_run "$@"
