#!/usr/bin/env bash
# Regenerates the analysis figures of docs/figures/ (issue 5) from the depth study's base config
# (configs/depth/base.yaml, d_model 64) at initialization:
#   output change vs depth for Post-LN, Pre-LN and Admin (N = 1..48 encoder layers, averaged
#   over 4 initializations), beta heatmaps and gradient-norm bars of 18-layer Post-LN, Pre-LN
#   and Admin; and, over training, beta of 6-layer Pre-LN and Admin models trained 300 updates
#   on the synthetic task, at init and at kept updates 100 and 300 (train.keep_checkpoint_every).
# Results are stored in DB (default runs/analysis.db); figures are PDF + PNG.
# Usage: scripts/make-analysis-figures.sh [DB]      (about 10 min on 2 CPU cores)
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-runs/analysis.db}
out=docs/figures
fathom="build/fathom --db $db"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$db")" "$out"

# One complete config per method, each named after it (the name labels the figures' lines).
for method in post:xavier pre:xavier post:admin; do
  norm=${method%%:*} init=${method##*:}
  label=$([ "$init" = admin ] && echo admin || echo "$norm")
  $fathom config configs/depth/base.yaml --set name="$label" model.norm="$norm" \
    model.init="$init" > "$tmp/$label.yaml"
done

for perturb in random update; do
  $fathom --json analyze output-shift "$tmp/post.yaml" "$tmp/pre.yaml" "$tmp/admin.yaml" \
    --depths 1,2,4,6,8,12,18,24,36,48 --perturb "$perturb" --draws 3 --inits 4 \
    > "$tmp/shift-$perturb.json"
  for ext in pdf png; do
    $fathom export plot analysis "$tmp/shift-$perturb.json" --kind output-shift \
      --out "$out/output-shift-$perturb.$ext"
  done
done

for label in post pre admin; do
  deep=(--set model.encoder_layers=18 model.decoder_layers=18)
  $fathom --json analyze beta "$tmp/$label.yaml" "${deep[@]}" > "$tmp/beta-$label.json"
  $fathom --json analyze grad-norms "$tmp/$label.yaml" "${deep[@]}" > "$tmp/grads-$label.json"
  for ext in pdf png; do
    $fathom export plot analysis "$tmp/beta-$label.json" --kind beta --out "$out/beta-18L-$label.$ext"
    $fathom export plot analysis "$tmp/grads-$label.json" --kind grad-norms --out "$out/grad-norms-18L-$label.$ext"
  done
done
# Beta over training: each model keeps its checkpoint every 100 updates.
for label in pre admin; do
  run="train-$label-6L"
  if ! $fathom show "$run" > /dev/null 2>&1; then  # trained once; reruns reuse it
    $fathom train "$tmp/$label.yaml" --no-progress --set name="$run" train.max_updates=300 \
      train.valid_every=100 train.keep_checkpoint_every=100 > /dev/null
  fi
  for checkpoint in init 100 300; do
    $fathom --json analyze beta "$run" --checkpoint "$checkpoint" > "$tmp/beta-$run-$checkpoint.json"
    $fathom export plot analysis "$tmp/beta-$run-$checkpoint.json" --kind beta \
      --out "$out/beta-6L-$label-$checkpoint.png"
  done
done
ls -1 "$out"
