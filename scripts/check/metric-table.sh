#!/usr/bin/env bash
# python/fathom/metric_presentation.json is generated: fails when it differs from
# `fathom --json metrics` (db/metric_presentation.h, the table the app and reports read).
# Usage: scripts/check/metric-table.sh FATHOM_BINARY   (ctest runs it: python_metric_table_current)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
fathom="${1:?usage: $0 FATHOM_BINARY}"
if ! diff -u "$root/python/fathom/metric_presentation.json" <("$fathom" --json metrics); then
  echo "python/fathom/metric_presentation.json is stale; regenerate it with:"
  echo "  build/fathom --json metrics > python/fathom/metric_presentation.json"
  exit 1
fi
echo "python/fathom/metric_presentation.json is current"
