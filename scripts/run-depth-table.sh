#!/usr/bin/env bash
# Trains the small-scale depth table of issue 3 (experiments/depth/base.yaml): five methods at
# 6 and 18 layers, two runs at a time (one CPU thread each), into one store, then lists them.
# Usage: scripts/run-depth-table.sh [DB] [DEPTHS...]    (defaults: runs/depth.db, 6 18)
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-runs/depth.db}
shift || true
depths=${*:-6 18}
fathom=build/fathom
mkdir -p "$(dirname "$db")"

declare -A rows=(
  [post-xavier]="--set model.norm=post --set model.init=xavier"
  [pre-xavier]="--set model.norm=pre --set model.init=xavier"
  [post-lipschitz]="--set model.norm=post --set model.init=lipschitz"
  [post-admin]="--set model.norm=post --set model.init=admin"
  [dlstm]="--set model.connection=depthwise_lstm --set model.init=xavier"
)
jobs=()
for depth in $depths; do
  for row in post-xavier pre-xavier post-lipschitz post-admin dlstm; do
    # train.threads=1: two processes share the cores (one OpenBLAS thread each).
    jobs+=("$fathom --db $db train experiments/depth/base.yaml --no-progress --set name=$row-$depth --set train.threads=1 \
      --set model.encoder_layers=$depth --set model.decoder_layers=$depth ${rows[$row]}")
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -I{} bash -c '{} > /dev/null 2>&1 || true'
"$fathom" --db "$db" runs
