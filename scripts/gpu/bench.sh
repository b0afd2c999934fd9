#!/usr/bin/env bash
# Run ON THE GPU MACHINE after scripts/gpu/build.sh: issue 7's GPU table. For each setting,
# bench_vs_reference times Fathom's training step and the PyTorch reference
# (bench/reference/train_step.py, same precision and checkpointing) alternately on the GPU --
# eager PyTorch, and where a setting asks for it the same forward + loss through torch.compile
# (issue 62) -- while nvidia-smi is sampled for each process's peak GPU memory (the driver's
# figure: the caching allocator's reserve plus the CUDA context, ~0.5 GiB).
#   scripts/gpu/bench.sh [BUILD_DIR] [PEAK_BF16_TFLOPS]
# PEAK_BF16_TFLOPS: the GPU's dense bf16 peak (default 989: H100 SXM; H200 the same).
# Prints two Markdown tables (speed and memory; where each step's time goes); full logs go to
# $LOG_DIR (default /tmp/fathom-gpu-bench). BENCH_DEADLINE_S: start no setting after that many
# seconds (settings are in priority order; a lease's script passes what it has left).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-/tmp/build-gpu}"
peak="${2:-989}"
logs="${LOG_DIR:-/tmp/fathom-gpu-bench}"
python="${PYTHON:-python3}"
steps="${STEPS:-10}"
rounds="${ROUNDS:-4}"
mkdir -p "$logs"
# shellcheck disable=SC1091
[ -f "$build/env.sh" ] && source "$build/env.sh"

# size precision checkpoint references graph
# (issue 34: base fp32 and bf16, big bf16, deep18 and deep60 with activation checkpointing;
# issue 62: torch.compile beside eager where the reference can compile, i.e. without
# checkpointing, and Fathom's forward + backward replayed as a CUDA graph (graph 1;
# core/train/graphed_updates.h) -- those first, the eager rows after them;
# SETTINGS="size precision checkpoint references graph;..." replaces the list)
settings=(
  "base bf16 0 eager,compile 1"
  "big bf16 0 eager,compile 1"
  "base fp32 0 eager,compile 1"
  "base bf16 0 eager,compile 0"
  "big bf16 0 eager,compile 0"
  "deep18 bf16 1 eager 0"
  "deep60 bf16 1 eager 0"
  "base fp32 0 eager,compile 0"
)
if [ -n "${SETTINGS:-}" ]; then IFS=';' read -r -a settings <<< "$SETTINGS"; fi

# Peak used GPU memory (MiB) per process id while $1 runs, into $2 ("pid mib" lines).
sample_memory() {
  local watched="$1" out="$2"
  : > "$out.raw"
  while kill -0 "$watched" 2> /dev/null; do
    nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits \
      >> "$out.raw" 2> /dev/null || true
    sleep 0.2
  done
  awk -F', *' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (p in m) print p, m[p] }' \
    "$out.raw" > "$out"
}

split="$logs/split.md"
echo "| setting | side | forward ms | backward ms | clip + Adam ms | step ms |" > "$split"
echo "| --- | --- | --- | --- | --- | --- |" >> "$split"
echo "| size | precision | checkpointing | Fathom tok/s | eager tok/s | ratio F/eager | torch.compile tok/s | ratio F/compile | Fathom TFLOP/s (% of ${peak} bf16 peak) | peak GPU MiB Fathom / PyTorch (nvidia-smi; the larger child) | allocator peak MiB Fathom / eager |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
t0=$SECONDS
for s in "${settings[@]}"; do
  read -r size precision checkpoint references graph <<< "$s"
  references="${references:-eager}"
  graph="${graph:-0}"
  label="$size"
  [ "$graph" = 1 ] && label="$size (graph)"
  if [ -n "${BENCH_DEADLINE_S:-}" ] && [ $((SECONDS - t0)) -ge "$BENCH_DEADLINE_S" ]; then
    echo "| $label | $precision | $checkpoint | (not run: out of time) |"
    continue
  fi
  log="$logs/$size-$precision-ckpt$checkpoint-graph$graph.log"
  "$build/bench/bench_vs_reference" size="$size" device=cuda steps="$steps" rounds="$rounds" \
    precision="$precision" checkpoint="$checkpoint" graph="$graph" peak_tflops="$peak" python="$python" \
    reference="$references" script="$repo/bench/reference/train_step.py" > "$log" 2>&1 &
  pid=$!
  sample_memory "$pid" "$log.mem"
  wait "$pid" || echo "($size $precision: bench_vs_reference exited non-zero, see $log)" >&2
  fathom_mib="$(awk -v p="$pid" '$1 == p { print $2 }' "$log.mem")"
  reference_mib="$(awk -v p="$pid" '$1 != p { if ($2 > m) m = $2 } END { print m + 0 }' "$log.mem")"
  # The "median over" block: the fathom line, then the reference line.
  fathom_tps="$(awk '/^median over/ { m = 1 } m && $1 == "fathom" { print $2; exit }' "$log")"
  reference_tps="$(awk '/^median over/ { m = 1 } m && $1 == "reference" { print $2; exit }' "$log")"
  compile_tps="$(awk '/^median over/ { m = 1 } m && $1 == "reference/compile" { print $2; exit }' "$log")"
  ratio="$(awk '/^ratio fathom\/reference:/ { print $3 }' "$log")"
  compile_ratio="$(awk '/^ratio fathom\/reference\/compile:/ { print $3 }' "$log")"
  # The median round's split of each side ("  NAME  N tok/s  step S ms (forward F, backward B,
  # clip+adam U)").
  awk -v setting="$label $precision ckpt $checkpoint" '/^median over/ { m = 1; next }
    m && /tok\/s  step/ { gsub(/[(),]/, " "); print "| " setting " | " $1 " | " $8 " | " $10 " | " $12 " | " $5 " |" }
    m && /^ratio/ { exit }' "$log" >> "$split"
  flops="$(awk '/^training FLOPs per target token/ { print $NF }' "$log")"
  achieved="$(awk -v t="${fathom_tps:-0}" -v f="${flops:-0}" -v p="$peak" \
    'BEGIN { a = t * f / 1e12; printf "%.1f (%.1f%%)", a, 100 * a / p }')"
  # LibTorch's caching allocator (bench/cuda_memory.h) and torch.cuda.max_memory_allocated().
  fathom_alloc="$(awk '/^fathom peak CUDA memory allocated/ { print $6 }' "$log")"
  reference_alloc="$(awk '/^reference peak CUDA memory allocated/ { print $6 }' "$log")"
  echo "| $label | $precision | $checkpoint | ${fathom_tps:-?} | ${reference_tps:-?} | ${ratio:-?} | ${compile_tps:--} | ${compile_ratio:--} | $achieved | ${fathom_mib:-?} / ${reference_mib:-?} | ${fathom_alloc:-?} / ${reference_alloc:-?} |"
done
echo
cat "$split"
