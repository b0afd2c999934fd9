#!/usr/bin/env bash
# The layer-linearization figures of docs/analyses.md (issue 15.2; the depth-wise LSTM paper's
# tables 6 and 7): trains the two 6-layer Multi30k models of
# configs/presets/linearize-multi30k.yaml (residual and depth-wise LSTM; about 20 min with 2
# workers on 2 CPU cores, skipped when already trained), then linearizes every encoder and
# decoder layer of each with the task objective, early stopping on validation and the control
# (one process per map, side by side: about 95 min for the residual model, 2 h for each of
# the depth-wise LSTM's two maps on a core of their own; `--layers enc:1-6` / `dec:1-6` split
# a model further), stores the results in DB and draws
# docs/figures/linearize-multi30k-{residual,dlstm,dlstm-output}.{png,pdf}. The depth-wise LSTM
# is linearized twice (issue 37.7): with the paper's map of its whole step, [o; c] -> [o; c]
# (`--lstm-map full`, four times the residual map's parameters), and with the
# parameter-matched o -> o (`--lstm-map output`). Prints each result's table.
# Usage: scripts/make-linearize-figures.sh [DB]        (default runs/linearize.db)
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-runs/linearize.db}
out=docs/figures
fathom="build/fathom --db $db"
mkdir -p "$(dirname "$db")" "$out" runs/linearize
build/fathom data get multi30k --no-progress  # once; the Multi30k presets read it (docs/data.md)

$fathom sweep configs/presets/linearize-multi30k.yaml --jobs 2 --resume --no-progress
$fathom export table --sweep linearize-multi30k --rows model.connection --metric test_bleu \
  --format md

# One model and map per process, one thread each, side by side (as a sweep's workers run).
pids=()
for job in residual:residual:full dlstm:depthwise_lstm:full dlstm-output:depthwise_lstm:output; do
  (
    IFS=: read -r short connection map <<< "$job"
    result=runs/linearize/$short.json
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
      $fathom --json analyze linearize "linearize-multi30k/connection=$connection" --no-progress \
      --lstm-map "$map" --steps 1000 --eval-every 100 --patience 2 > "$result"
    for ext in png pdf; do
      $fathom export plot analysis "$result" --kind linearize \
        --out "$out/linearize-multi30k-$short.$ext"
    done
  ) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done  # a failed one fails the script
# The three results just stored, as tables (layer, ppl and BLEU change, control, steps).
for id in $($fathom analyze list --kind linearize | awk 'NR > 1 {print $1}' | tail -n 3); do
  $fathom analyze show "$id"
done
