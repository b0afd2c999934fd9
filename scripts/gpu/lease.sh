#!/usr/bin/env bash
# Run ON THE GPU MACHINE, in the repository root, with .debs/ and .corpora/ carried: every open
# GPU item in ONE call of the device tool, so that a 15-minute lease pays for one machine start
# and one build (docs/gpu.md, docs/replication.md):
#   1. the machine; 2. scripts/gpu/build.sh;
#   3. the CUDA tests: the fused AdamW kernel, the one-rank NCCL run against the plain run
#      (issue 55), the trainer end to end (FATHOM_TEST_DEVICE=cuda);
#   3b. bench_loss: the loss's reduced-precision node against its autograd formula;
#   4. scripts/gpu/graphs-on-corpus.sh: train.cuda_graphs on Multi30k at base width, eager and
#      graphed, data.pad_to_multiple 1 and 8 (GRAPHS_S, default 180);
#   5. the update with the fused kernel and with the foreach ops (bench_train, issue 62);
#   6. scripts/gpu/replicate.sh: the 18-layer runs on Multi30k with their analyses (issue 63),
#      trained for whatever time the call leaves them (BENCH_RESERVE kept for 7 if wanted);
#   7. scripts/gpu/bench.sh: Fathom against PyTorch eager and torch.compile (issue 62).
#   run(command="scripts/gpu/lease.sh", carry=[".debs", ".corpora"], timeout_s=600)
# A 15-minute lease fits two calls on the warm machine (it keeps build-gpu/, in the repository):
#   run(command="PHASES='build tests update replicate' DEADLINE_S=585 scripts/gpu/lease.sh", ...)
#   run(command="PHASES=bench DEADLINE_S=<what is left> scripts/gpu/lease.sh", ...)
# DEADLINE_S (default 570) is when the call must be done; each phase gets its own limit, cut
# so that the phases after it keep what they need (the *_RESERVE figures below). The bench
# phase runs its settings in priority order and skips what no longer fits. Results in
# RESULT_DIR (default $OUT): machine.txt, tests.log, graphs.md, update.txt, bench.md,
# summary.md, replicate.db and the logs (graphs.tar.gz, replicate.tar.gz, lease.tar.gz).
# BENCH_SETTINGS replaces bench.sh's list (its SETTINGS), BENCH_S (default 300) caps its
# phase, TRAINER_S (default 45) the trainer's tests on CUDA (TRAINER_TESTS=0: none),
# BUILD_RESERVE (default 300) what the build leaves to the phases after it; PHASES (default
# "build tests loss graphs update replicate bench") picks phases; they run in that order.
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
results="${1:-${OUT:-/tmp/fathom-lease}}"
build="${BUILD_DIR:-$repo/build-gpu}"  # in the repository: a warm machine keeps it between calls
logs=/tmp/fathom-lease
deadline="${DEADLINE_S:-570}"
phases=" ${PHASES:-build tests loss graphs update replicate bench} "
mkdir -p "$logs" "$results"
t0=$SECONDS
collect() {
  for f in machine.txt tests.log loss.txt update.txt bench.md; do
    [ -f "$logs/$f" ] && cp "$logs/$f" "$results/"
  done
  tar -czf "$results/lease.tar.gz" -C "$logs" . 2> /dev/null
}
trap collect EXIT
phase() { echo "== $1 at $((SECONDS - t0)) s" | tee -a "$logs/phases.txt"; }
wanted() { [[ "$phases" == *" $1 "* ]]; }
# Seconds a phase may take: at most `want`, and never into the `reserve` later phases need.
limit() {
  local want="$1" reserve="$2" left
  left=$((deadline - (SECONDS - t0) - reserve))
  ((left < want)) && want=$left
  ((want < 1)) && want=1  # timeout 0 would mean no limit at all
  echo "$want"
}

phase machine
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nvcc --version 2> /dev/null | tail -n 2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
    "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(0))'
  echo "cores $(nproc), $(date -u +%FT%TZ)"
} 2>&1 | tee "$logs/machine.txt"

if wanted build || [ ! -x "$build/fathom" ]; then
  phase build
  # Only what the wanted phases run: fathom-bench is every benchmark (bench_train,
  # bench_vs_reference: links to it), one unity batch of LibTorch files.
  targets="fathom core_tests fathom-bench"
  BUILD_TARGETS="$targets" timeout "$(limit 260 "${BUILD_RESERVE:-300}")" \
    "$repo/scripts/gpu/build.sh" "$build" \
    > "$logs/build.log" 2>&1
  echo "build exit $?" | tee -a "$logs/phases.txt"
  grep -E "^build:|NCCL:|error:|FAILED" "$logs/build.log" | head -n 30
fi
[ -x "$build/fathom" ] || { tail -n 40 "$logs/build.log"; exit 1; }
# shellcheck disable=SC1091
[ -f "$build/env.sh" ] && source "$build/env.sh"  # (a CPU rehearsal's build has none)

if wanted tests; then
  phase tests
  # The new CUDA code first (a few seconds), then the trainer end to end on the GPU.
  (
    cd "$build" || exit 1
    export FATHOM_TEST_DEVICE=cuda
    # The time the phases after this one keep (none when only build and tests are wanted).
    later=0
    { wanted graphs || wanted update || wanted replicate || wanted bench; } && later=300
    timeout "$(limit 40 $((later + 30)))" ./tests/core_tests \
      --gtest_filter='TokenLosses.*:GraphedPass.*:TrainerTest.CudaGraphs*:TrainerTest.Tf32*:FusedAdamW.*:ReduceBackend.*:DataParallel.AOneRankNccl*:Linearize.OnCuda*:AnalysesOnCuda.*'
    if [ "${TRAINER_TESTS:-1}" = 1 ]; then
      timeout "$(limit "${TRAINER_S:-45}" "$later")" ./tests/core_tests \
        --gtest_filter='TrainerTest.*:CheckpointedLayers.*:-TrainerTest.CudaGraphs*:TrainerTest.Tf32*'
    fi
  ) > "$logs/tests.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|Failure" "$logs/tests.log" | head -n 30
fi

if wanted loss; then
  phase loss
  # The loss alone at the bench's logits (8,192 tokens, 32k vocabulary): the reduced-precision
  # node against the autograd formula (core/train/token_losses.h), a few seconds each.
  for dtype in bf16 fp16; do
    timeout "$(limit 30 300)" "$build/bench/bench_loss" cuda 8192 32000 "$dtype" 20 2>&1 | tail -n 3
  done | tee "$logs/loss.txt"
fi

if wanted graphs; then
  phase graphs
  # Four short trainings on the real corpus, one after the other; what is left after them goes
  # to the update, replicate and bench phases.
  later=0
  { wanted update || wanted replicate || wanted bench; } && later=200
  budget="$(limit "${GRAPHS_S:-180}" "$later")"
  BUILD_DIR="$build" ARM_S=$((budget / 4)) timeout "$budget" \
    "$repo/scripts/gpu/graphs-on-corpus.sh" "$results" > "$logs/graphs.log" 2>&1
  echo "graphs exit $?" | tee -a "$logs/phases.txt"
  tail -n 8 "$logs/graphs.log"
fi

if wanted update; then
  phase update
  # The step split with LibTorch's fused AdamW kernel and with the foreach ops, side by side.
  for optimizer in adam adam-foreach; do
    timeout "$(limit 25 300)" "$build/bench/bench_train" base 10 0 cuda post keep bf16 0 auto \
      "$optimizer" 2>&1 | grep -E "^size|^tokens/s" | tr '\n' ' '
    echo
  done | tee "$logs/update.txt"
fi

if wanted replicate; then
  phase replicate
  # replicate.sh trains for what is left after its calibration (the BPE vocabulary is learnt
  # there), less the sweep's start and final evaluation, the analyses (ANALYSIS_S, on the CPU:
  # beta ~20 s and grad-norms ~30 s a run on five cores) and the summary.
  after=0
  wanted bench && after="${BENCH_RESERVE:-200}"
  end_s="$(limit 500 "$after")"
  echo "replicate: $end_s s in all" | tee -a "$logs/phases.txt"
  BUILD_DIR="$build" END_S=$((end_s - 5)) CAL_S=75 CAL_UPDATES="${CAL_UPDATES:-4}" \
    ANALYSIS_S="${ANALYSIS_S:-70}" EVAL_SENTENCES="${EVAL_SENTENCES:-300}" \
    timeout "$end_s" "$repo/scripts/gpu/replicate.sh" "$results" > "$logs/replicate.log" 2>&1
  echo "replicate exit $?" | tee -a "$logs/phases.txt"
  tail -n 40 "$logs/replicate.log"
fi
if wanted bench; then
  phase bench
  # What bench.sh starts after BENCH_DEADLINE_S is skipped; a setting takes up to ~60 s.
  budget="$(limit "${BENCH_S:-300}" 0)"
  [ -n "${BENCH_SETTINGS:-}" ] && export SETTINGS="$BENCH_SETTINGS"
  STEPS="${STEPS:-8}" ROUNDS="${ROUNDS:-3}" LOG_DIR="$logs/bench" \
    BENCH_DEADLINE_S=$((budget - 60)) timeout "$budget" "$repo/scripts/gpu/bench.sh" "$build" "${PEAK_TFLOPS:-989}" 2>&1 |
    tee "$logs/bench.md"
fi

phase done
