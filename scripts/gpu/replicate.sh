#!/usr/bin/env bash
# Run ON THE GPU MACHINE, in the repository root, with .debs/ and .corpora/ carried (issue 63,
# docs/replication.md): 18-layer Post-LN, Admin and Pre-LN at Transformer-base width on
# Multi30k in one call, sized to the lease.
#   1. build (scripts/gpu/build.sh), unless BUILD_DIR already holds fathom;
#   2. calibrate: the three runs of configs/presets/replicate-18l-gpu.yaml side by side on the
#      GPU for CAL_UPDATES updates, their speed read from the store;
#   3. train: the same three for as many updates as TRAIN_S seconds allow at that speed (the
#      warmup a quarter of them);
#   4. analyse each run's last model (beta, grad-norms; ln-scale for Post-LN; then layer-skip),
#      the runs side by side on the host's CPU under one limit (ANALYSIS_S);
#   5. leave in RESULT_DIR: replicate.db (the store), summary.md, replicate.tar.gz (every log).
#   scripts/gpu/replicate.sh [RESULT_DIR]           # default $OUT (the device tool's folder)
# Here, without a GPU, the same steps at a tiny size on the CPU check the script before a
# lease spends device time on it:
#   REHEARSE=1 BUILD_DIR=build scripts/gpu/replicate.sh /tmp/replicate-rehearsal
# .corpora/multi30k: a copy of the corpus's six files (`cp -r ../shared/data/multi30k .corpora/`;
# 1.3 MB), carried with .debs: run(command="scripts/gpu/replicate.sh", carry=[".debs", ".corpora"]).
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
results="${1:-${OUT:-/tmp/fathom-replicate}}"
build="${BUILD_DIR:-/tmp/build-gpu}"
work="${WORK_DIR:-/tmp/fathom-replicate}-work"
train_s="${TRAIN_S:-200}"  # the whole call stays under the device tool's 600 s
# END_S: when set, the script must be done that many seconds after it started; TRAIN_S is then
# what is left after calibration, less the sweep's start and final evaluation (90 s), the
# analyses (ANALYSIS_S) and the summary (15 s), at least 30.
# EVAL_SENTENCES: decode only the first K test sentences at the end (eval.max_sentences)
cal_updates="${CAL_UPDATES:-6}"
preset="$repo/configs/presets/replicate-18l-gpu.yaml"
rm -rf "$work" && mkdir -p "$work/logs" "$results"
db="$work/replicate.db"
export FATHOM_DATA="$work/corpora"
t0=$SECONDS
phase() { echo "== $1 at $((SECONDS - t0)) s" | tee -a "$work/logs/phases.txt"; }
collect() {
  [ -f "$db" ] && python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute(
    "VACUUM INTO ?", (sys.argv[2],))' "$db" "$results/replicate.db" 2> /dev/null
  [ -f "$work/summary.md" ] && cp "$work/summary.md" "$results/"
  tar -czf "$results/replicate.tar.gz" -C "$work/logs" . 2> /dev/null
}
trap collect EXIT

if [ -n "${REHEARSE:-}" ]; then
  # The CPU, a model small enough to train in seconds, one slot per run without a device.
  devices=(--devices none)
  analysis_device=()
  size=(--set device=cpu --set model.d_model=32 --set model.heads=2 --set model.d_ff=64
        --set model.encoder_layers=2 --set model.decoder_layers=2 --set train.precision=fp32
        --set data.vocab.size=1000 --set data.max_tokens=1024 --set train.update_tokens=2048
        --set train.threads=1 --set eval.max_sentences=20)
  corpus="${CORPUS:-$repo/../shared/data/multi30k}"
else
  devices=(--devices cuda:0,cuda:0,cuda:0)
  analysis_device=(--device cuda:0)  # every analysis it runs: seconds where the CPU takes a minute
  size=()
  corpus="${CORPUS:-$repo/.corpora/multi30k}"
fi

phase build
if [ ! -x "$build/fathom" ]; then
  timeout "${BUILD_S:-330}" "$repo/scripts/gpu/build.sh" "$build" > "$work/logs/build.log" 2>&1 ||
    { tail -n 30 "$work/logs/build.log"; [ -x "$build/fathom" ] || exit 1; }
fi
# shellcheck disable=SC1091
[ -f "$build/env.sh" ] && source "$build/env.sh"
fathom() { "$build/fathom" --db "$db" "$@"; }

phase data
"$build/fathom" data get multi30k --from "$corpus" --no-progress > "$work/logs/data.log" 2>&1 ||
  { cat "$work/logs/data.log"; exit 1; }

phase calibrate
timeout "${CAL_S:-240}" "$build/fathom" --db "$work/calibrate.db" sweep "$preset" \
  --name replicate-18l-calibrate --jobs 3 "${devices[@]}" "${size[@]}" \
  --set "train.max_updates=$cal_updates" --set train.log_every=2 --set train.valid_every=1000 \
  --set eval.max_sentences=8 --no-progress > "$work/logs/calibrate.log" 2>&1
# The slowest run's target tokens per second, the median of its points after the first logged
# one (the first updates pay for the allocator and the kernels' first calls; on the 11-30 lease
# the last point alone read 14.1k where training ran at a median 15.9k), over the tokens of an
# update its stored config says: the updates TRAIN_S allows, within [40, the preset's ceiling of
# 400].
if [ -n "${END_S:-}" ]; then
  train_s=$((END_S - (SECONDS - t0) - 90 - ${ANALYSIS_S:-240} - 15))
  ((train_s < 30)) && train_s=30
fi
read -r tokens_per_s updates warmup every < <(python3 - "$work/calibrate.db" "$train_s" <<'PY'
import json, sqlite3, sys
db, budget = sqlite3.connect(sys.argv[1]), float(sys.argv[2])
speeds, tokens = [], 0
for rid, config in db.execute("select id, config_json from runs"):
    tokens = json.loads(config)["train"]["update_tokens"]
    points = [v for (v,) in db.execute("select value from metrics where run_id = ? and "
                                       "name = 'tokens_per_s' order by step", (rid,))]
    steady = sorted(points[1:] or points)
    if steady: speeds.append(steady[len(steady) // 2])
tps = min(speeds) if speeds else 0
n = max(40, min(400, int(budget * tps / tokens))) if tps > 0 and tokens > 0 else 40
print(tps, n, max(10, n // 4), max(10, n // 8))
PY
)
echo "calibrated: $tokens_per_s target tokens/s (slowest of 3 side by side) -> $updates updates" \
  "in $train_s s, warmup $warmup, validation every $every" | tee -a "$work/logs/phases.txt"

phase train
sweep_s="${SWEEP_S:-$((train_s + 180))}"
[ -n "${END_S:-}" ] && sweep_s=$((train_s + 90))
timeout "$sweep_s" "$build/fathom" --db "$db" sweep "$preset" --jobs 3 \
  "${devices[@]}" "${size[@]}" --set "train.max_updates=$updates" --set "train.warmup=$warmup" \
  --set "train.valid_every=$every" --set "train.grad_norm_every=$every" \
  --set "train.keep_checkpoint_every=$((updates / 2))" ${EVAL_SENTENCES:+--set "eval.max_sentences=$EVAL_SENTENCES"} \
  --no-progress > "$work/logs/train.log" 2>&1
echo "sweep exit $?" | tee -a "$work/logs/phases.txt"

phase analyse
# Each run's analyses in the background, the runs side by side on their own share of the host's
# cores (and on the GPU: --device), all under one limit: ANALYSIS_S seconds in all.
runs="$(python3 -c 'import sqlite3, sys
for (i, n) in sqlite3.connect(sys.argv[1]).execute("select id, name from runs order by id"):
    print(i, n)' "$db")"
cores="$(nproc)"
analyses_end=$((SECONDS + ${ANALYSIS_S:-240}))
share=$(( cores / 3 > 0 ? cores / 3 : 1 ))
slot=0
while read -r id name; do
  [ -n "$id" ] || continue
  kinds=(beta grad-norms)
  [[ "$name" == *norm=post* ]] && kinds+=(ln-scale)
  kinds+=(layer-skip)  # last: it runs only where the limit leaves time
  first=$(( (slot * share) % cores )); last=$(( first + share - 1 ))
  slot=$((slot + 1))
  (
    for kind in "${kinds[@]}"; do
      limit=$((analyses_end - SECONDS))
      if [ "$limit" -le 0 ]; then
        echo "analyze $kind run $id ($name): not run (ANALYSIS_S spent)" | tee -a "$work/logs/phases.txt"
        continue
      fi
      taskset -c "$first-$last" timeout "$limit" "$build/fathom" --db "$db" analyze \
        "$kind" "$id" --checkpoint last "${analysis_device[@]}" --no-progress \
        > "$work/logs/analyze-$kind-$id.log" 2>&1
      echo "analyze $kind run $id ($name): exit $?" | tee -a "$work/logs/phases.txt"
    done
  ) &
done <<< "$runs"
# The analyses write to one SQLite store; its busy timeout serialises their few writes.
wait

phase summary
{
  echo "# replicate-18l-gpu ($(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1))"
  echo
  cat "$work/logs/phases.txt"
  echo
  fathom runs --sweep replicate-18l-gpu
  echo
  # Speed and memory per run, for the GPU hours a full schedule would take (docs/replication.md).
  python3 - "$db" <<'PY'
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
print("| run | status | updates | median target tokens/s | last train_loss | most reserved MiB |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for rid, name, status, updates in db.execute("select id, name, status, updates from runs order by id"):
    series = lambda m: [v for (v,) in db.execute(
        "select value from metrics where run_id = ? and name = ? order by step", (rid, m))]
    tps, loss = series("tokens_per_s")[1:], series("train_loss")
    peak = max(series("sys.cuda_reserved_mib") or [float("nan")])
    print(f"| {name} | {status} | {updates} | {statistics.median(tps) if tps else float('nan'):,.0f} "
          f"| {loss[-1] if loss else float('nan'):.3f} | {peak:,.0f} |")
PY
  echo
  for metric in valid_ppl test_bleu; do
    fathom export table --sweep replicate-18l-gpu --rows model.norm+model.init \
      --cols model.encoder_layers --metric "$metric" --agg mean
    echo
  done
  fathom analyze list
} > "$work/summary.md" 2>&1
cat "$work/summary.md"
phase done
