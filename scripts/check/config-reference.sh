#!/usr/bin/env bash
# docs/config.md is generated: fails when it differs from `fathom config --reference`.
# Usage: scripts/check/config-reference.sh FATHOM_BINARY   (ctest runs it: docs_config_current)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
fathom="${1:?usage: $0 FATHOM_BINARY}"
if ! diff -u "$root/docs/config.md" <("$fathom" config --reference); then
  echo "docs/config.md is stale; regenerate it with:"
  echo "  build/fathom config --reference > docs/config.md"
  exit 1
fi
echo "docs/config.md is current"
