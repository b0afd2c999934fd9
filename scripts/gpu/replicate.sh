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
# More seeds of an earlier lease's runs: JOIN_STORE=FILE (that lease's store, e.g. the study store
# restored into .corpora/) and SEEDS=2 (a list: 2,3) train the same three configurations with
# those seeds into a copy of it, as a second file of the same sweep (docs/sweeps.md) under the
# --set values its runs were launched with (their sweep.set tag: the same updates, warmup and
# evaluation), so there is no calibration; its earlier runs' analyses at init run too.
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
sweep_file="$preset"
if [ -n "${SEEDS:-}" ]; then
  # The preset with other seeds: the same sweep name, its base by absolute path.
  sweep_file="$work/replicate-18l-gpu-seeds.yaml"
  sed -e "s|^seeds: .*|seeds: [$SEEDS]|" -e "s|^base: \.\./|base: $repo/configs/|" "$preset" \
    > "$sweep_file"
fi
joined=()  # the earlier launch's --set values, when JOIN_STORE is given
if [ -n "${JOIN_STORE:-}" ]; then
  [ -n "${SEEDS:-}" ] || { echo "replicate: JOIN_STORE needs SEEDS (the new seeds)" >&2; exit 2; }
  cp "$JOIN_STORE" "$db" || exit 1
  read -r -a launched < <(python3 -c 'import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "select value from run_tags where key = \"sweep.set\" limit 1").fetchone()
print(row[0] if row else "")' "$db")
  ((${#launched[@]} > 0)) || { echo "replicate: $JOIN_STORE has no sweep.set tag" >&2; exit 1; }
  for value in "${launched[@]}"; do joined+=(--set "$value"); done
fi
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

if ((${#joined[@]} > 0)); then
  phase train
  # The earlier launch's values (size and schedule) and its sweep name: only the new seeds run.
  sweep_s=$((${END_S:-$((train_s + 300))} - (SECONDS - t0) - ${ANALYSIS_S:-240} - 15))
  echo "joining $JOIN_STORE with seeds $SEEDS: ${launched[*]} ($sweep_s s)" | tee -a "$work/logs/phases.txt"
  timeout "$sweep_s" "$build/fathom" --db "$db" sweep "$sweep_file" --resume --jobs 3 \
    "${devices[@]}" "${joined[@]}" --no-progress > "$work/logs/train.log" 2>&1
  echo "sweep exit $?" | tee -a "$work/logs/phases.txt"
else
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
timeout "$sweep_s" "$build/fathom" --db "$db" sweep "$sweep_file" --jobs 3 \
  "${devices[@]}" "${size[@]}" --set "train.max_updates=$updates" --set "train.warmup=$warmup" \
  --set "train.valid_every=$every" --set "train.grad_norm_every=$every" \
  --set "train.keep_checkpoint_every=$((updates / 2))" ${EVAL_SENTENCES:+--set "eval.max_sentences=$EVAL_SENTENCES"} \
  --no-progress > "$work/logs/train.log" 2>&1
echo "sweep exit $?" | tee -a "$work/logs/phases.txt"
fi

phase analyse
# Each run's analyses in the background, the runs side by side on their own share of the host's
# cores (and on the GPU: --device), all under one limit: ANALYSIS_S seconds in all.
runs="$(python3 -c 'import sqlite3, sys
for (i, n) in sqlite3.connect(sys.argv[1]).execute("select id, name from runs order by id"):
    print(i, n)' "$db")"
cores="$(nproc)"
analyses_end=$((SECONDS + ${ANALYSIS_S:-240}))
# With a deadline, whatever the sweep left of its time goes to the analyses too (the summary's
# 15 s kept): a joined sweep of fixed length often ends well before its limit.
[ -n "${END_S:-}" ] && analyses_end=$((t0 + END_S - 15))
lanes="$(grep -c . <<< "$runs")"
share=$(( cores / lanes > 0 ? cores / lanes : 1 ))
slot=0
half="$(python3 -c 'import json, sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute("select config_json from runs limit 1").fetchone()
print(json.loads(row[0])["train"]["keep_checkpoint_every"] if row else 0)' "$db")"
new_seed() {  # whether run NAME trained in this call (an earlier lease's runs kept no checkpoint)
  [ -z "${SEEDS:-}" ] && return 0
  local seed
  for seed in ${SEEDS//,/ }; do [[ "$1" == *",seed=$seed" ]] && return 0; done
  return 1
}
while read -r id name; do
  [ -n "$id" ] || continue
  # kind@checkpoint, in order of need: the last model's (the stored figures), then at
  # initialisation (Liu et al. measure the gradient there, methods.md s5.3), then half-way.
  if new_seed "$name"; then
    kinds=(beta@last grad-norms@last)
    [[ "$name" == *norm=post* ]] && kinds+=(ln-scale@last)
    kinds+=(grad-norms@init beta@init)
    ((half > 0)) && kinds+=("beta@$half")
    kinds+=(layer-skip@last)  # last: it runs only where the limit leaves time
  else
    kinds=(grad-norms@init beta@init)
  fi
  first=$(( (slot * share) % cores )); last=$(( first + share - 1 ))
  slot=$((slot + 1))
  (
    for entry in "${kinds[@]}"; do
      kind="${entry%@*}" checkpoint="${entry#*@}"
      limit=$((analyses_end - SECONDS))
      if [ "$limit" -le 0 ]; then
        echo "analyze $kind ($checkpoint) run $id ($name): not run (ANALYSIS_S spent)" |
          tee -a "$work/logs/phases.txt"
        continue
      fi
      taskset -c "$first-$last" timeout "$limit" "$build/fathom" --db "$db" analyze \
        "$kind" "$id" --checkpoint "$checkpoint" "${analysis_device[@]}" --no-progress \
        > "$work/logs/analyze-$kind-$checkpoint-$id.log" 2>&1
      echo "analyze $kind ($checkpoint) run $id ($name): exit $?" | tee -a "$work/logs/phases.txt"
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
      --cols model.encoder_layers --metric "$metric" --agg mean --seeds mean±std
    echo
  done
  fathom analyze list
} > "$work/summary.md" 2>&1
cat "$work/summary.md"
phase done
