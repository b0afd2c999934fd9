#!/usr/bin/env bash
# Run ON THE GPU MACHINE, in the repository root, with .corpora/ carried: what train.cuda_graphs
# gives a real run, whose batch shapes vary (docs/gpu.md). configs/multi30k.yaml at
# Transformer-base width (6-6, d 512, bf16) trained UPDATES (200) updates four ways, one after the
# other on the one GPU: eager and graphed, each with data.pad_to_multiple 1 and 8 (the padding's
# cost apart from the graphs' gain). Per arm: the median tokens/s over the last third of the
# logged points (after the first epoch's captures) and over all but the first, the wall time, the plan's batches and shapes (the run's data.batches tag) and the graphs'
# summary from stderr; the last train loss, so an arm that went wrong shows.
#   scripts/gpu/graphs-on-corpus.sh [RESULT_DIR]     # default $OUT; writes graphs.md and logs
# BUILD_DIR (default build-gpu) must hold fathom (scripts/gpu/lease.sh builds it). Here, without
# a GPU, a tiny CPU rehearsal checks the script (graphs off: the CPU cannot capture):
#   REHEARSE=1 BUILD_DIR=build scripts/gpu/graphs-on-corpus.sh /tmp/graphs-rehearsal
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
results="${1:-${OUT:-/tmp/fathom-graphs}}"
build="${BUILD_DIR:-$repo/build-gpu}"
updates="${UPDATES:-200}"
work="${WORK_DIR:-/tmp/fathom-graphs-work}"
rm -rf "$work" && mkdir -p "$work" "$results"
db="$work/graphs.db"
export FATHOM_DATA="$work/corpora"
# shellcheck disable=SC1091
[ -f "$build/env.sh" ] && source "$build/env.sh"

if [ -n "${REHEARSE:-}" ]; then
  corpus="${CORPUS:-$repo/../shared/data/multi30k}"
  size=(--device cpu --set model.d_model=32 --set model.heads=2 --set model.d_ff=64
        --set model.encoder_layers=1 --set model.decoder_layers=1 --set data.vocab.size=1000
        --set train.threads=2)
  graphs=false
else
  corpus="${CORPUS:-$repo/.corpora/multi30k}"
  size=(--device cuda --set model.d_model=512 --set model.heads=8 --set model.d_ff=2048
        --set model.encoder_layers=6 --set model.decoder_layers=6 --set train.precision=bf16)
  graphs=true
fi
"$build/fathom" data get multi30k --from "$corpus" --no-progress > "$work/data.log" 2>&1 ||
  { cat "$work/data.log"; exit 1; }

echo "| arm | tokens/s (median, last third) | tokens/s (median, all) | wall s | data.batches | graphs | last train loss |" \
  > "$work/graphs.md"
echo "| --- | ---: | ---: | ---: | --- | --- | ---: |" >> "$work/graphs.md"
for arm in "eager 1" "eager 8" "graphs 1" "graphs 8"; do
  read -r kind multiple <<< "$arm"
  name="$kind-pad$multiple"
  cuda_graphs=false
  [ "$kind" = graphs ] && cuda_graphs=$graphs
  start=$SECONDS
  timeout "${ARM_S:-240}" "$build/fathom" --db "$db" train "$repo/configs/multi30k.yaml" \
    "${size[@]}" --set "name=$name" --set "train.max_updates=$updates" \
    --set train.log_every=10 --set "train.valid_every=$updates" --set eval.max_sentences=10 \
    --set "train.cuda_graphs=$cuda_graphs" --set "data.pad_to_multiple=$multiple" \
    --no-progress > "$work/$name.log" 2>&1
  echo "$name: exit $?, $((SECONDS - start)) s" | tee -a "$work/phases.txt"
  python3 - "$db" "$name" "$((SECONDS - start))" \
    "$(grep -h 'train.cuda_graphs: [0-9]' "$work/$name.log" | tail -n 1 | cut -c 20-)" \
    >> "$work/graphs.md" << 'PY'
import sqlite3, statistics, sys
db, name, wall, graphs = sys.argv[1:5]
con = sqlite3.connect(db)
row = con.execute("select id from runs where name = ? order by id desc limit 1", (name,)).fetchone()
if row is None:
    print(f"| {name} | -- | -- | {wall} | (no run) | | |")
    sys.exit()
run = row[0]
def series(metric):
    return [v for (v,) in con.execute("select value from metrics where run_id = ? and name = ? "
                                      "order by step", (run, metric))]
speeds = series("tokens_per_s")
# The first epoch meets every shape (and captures it); the last third is the steady state.
steady = statistics.median(speeds[len(speeds) * 2 // 3:]) if speeds else float("nan")
speed = statistics.median(speeds[1:] or speeds) if speeds else float("nan")
losses = series("train_loss")
tag = con.execute("select value from run_tags where run_id = ? and key = 'data.batches'",
                  (run,)).fetchone()
print(f"| {name} | {steady:,.0f} | {speed:,.0f} | {wall} | {tag[0] if tag else '--'} | {graphs or '--'} | "
      f"{losses[-1] if losses else float('nan'):.4f} |")
PY
done
cp "$work/graphs.md" "$results/"
tar -czf "$results/graphs.tar.gz" -C "$work" --exclude corpora --exclude graphs.db . 2> /dev/null
cat "$work/graphs.md"
