#!/usr/bin/env bash
# The depth study of issue 15 (docs/methods-notes.md, "The depth study, 3 seeds"): runs the
# presets and writes one report per sweep, each method at its best learning rate by depth.
#   configs/presets/depth-study.yaml           synthetic task, 72 runs (about 70 min, --jobs 2)
#   configs/presets/depth-study-36.yaml        the same at 36 layers, 15 runs (about 30 min)
#   configs/presets/depth-study-multi30k.yaml  Multi30k de-en, 27 runs (about 60 min)
#   configs/presets/dlstm-longer.yaml          6-layer depth-wise LSTM vs Pre-LN, 4x the updates
#   configs/presets/lipschitz-embedding-multi30k.yaml  Lipschitz with the Transformer's
#                                              embeddings, 12 runs (about 25 min)
#   configs/presets/depth-lr-study.yaml        issue 37's protocol: 6 learning rates, 6 and 18
#                                              layers, 180 runs (hours; its store is saved in
#                                              docs/studies/): the tables with the rate chosen on
#                                              validation, 95 % intervals and Welch's p, the LR
#                                              sensitivity, and one figure per depth
# Usage: scripts/run-depth-study.sh [DB] [PRESET...]   (default runs/depth-study.db, the first
#                                                        five)
# Needs a build (scripts/build.sh). Running it again continues each sweep (--resume) and
# rewrites the reports under runs/depth-study/<sweep>/report.md. A bigger rerun is the
# `fathom sweep ... --set ... --name ...` line in each preset's header.
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-runs/depth-study.db}
shift || true
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(depth-study depth-study-36 depth-study-multi30k dlstm-longer
                                      lipschitz-embedding-multi30k)
fathom="build/fathom --db $db"
mkdir -p "$(dirname "$db")" runs/depth-study
build/fathom data get multi30k --no-progress  # once; the Multi30k presets read it (docs/data.md)

# Issue 37's protocol (docs/methods-notes.md, "The depth study with the tool's own protocol").
depth_lr_tables() {
  local name=$1 out=runs/depth-study/$1
  mkdir -p "$out"
  for metric in valid_ppl test_bleu; do
    $fathom export table --sweep "$name" --rows model.norm+model.init+model.connection \
      --cols model.encoder_layers --metric "$metric" --agg best --select-by valid_loss \
      --seeds 'mean±ci95' --versus 'post / xavier / residual' --format md
  done
  $fathom export lr-sensitivity --sweep "$name" --label model.norm+model.init+model.connection \
    --format md
  for layers in 6 18; do
    $fathom export plot lr-sensitivity --sweep "$name" --where "encoder_layers=$layers" \
      --label model.norm+model.init+model.connection --size page --out "$out/lr-$layers.png"
  done
}

for name in "${presets[@]}"; do
  file=configs/presets/$name.yaml
  [ -f "$file" ] || { echo "run-depth-study: no preset $file" >&2; exit 2; }
  $fathom sweep "$file" --jobs 2 --resume --no-progress
  $fathom sweep status "$name" | tail -n 1
  if [ "$name" = depth-lr-study ]; then
    depth_lr_tables "$name"
    continue
  fi
  case $name in
    dlstm-longer) layout=(--rows model.init+model.connection) ;;
    lipschitz-embedding-multi30k) layout=(--rows model.embedding_init --cols model.encoder_layers) ;;
    *) layout=(--rows model.norm+model.init+model.connection --cols model.encoder_layers
               --agg best) ;;
  esac
  report=$($fathom report "$name" --out "runs/depth-study/$name" "${layout[@]}")
  echo "report: $report"
  for metric in valid_ppl test_bleu; do
    $fathom export table --sweep "$name" "${layout[@]}" --metric "$metric" \
      --seeds 'mean±std' --format md
  done
done
