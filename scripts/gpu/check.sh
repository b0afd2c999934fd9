#!/usr/bin/env bash
# Run ON THE GPU MACHINE, in the repository root, with .debs/ carried: the whole GPU check of
# issue 34 in one call, sized for a short lease (docs/gpu.md):
#   1. what the machine is (nvidia-smi, driver, CUDA, PyTorch);
#   2. scripts/gpu/build.sh (headless core, tests, benchmarks against the machine's LibTorch);
#   3. the tensor tests on CUDA (FATHOM_TEST_DEVICE=cuda, tests/support/test_device.h);
#   4. the update with LibTorch's fused AdamW kernel against the foreach ops (bench_train,
#      issue 62), then scripts/gpu/bench.sh (Fathom against the PyTorch eager reference).
#   scripts/gpu/check.sh [RESULT_DIR]   # default $OUT (the device tool's folder)
# Each phase has its own time limit (BUILD_S, TEST_S, UPDATE_S, BENCH_S seconds), so a slow
# phase cannot eat the next one's time. The logs are written under /tmp/fathom-gpu-check; on
# exit, whatever happened, RESULT_DIR gets machine.txt, tests.log, update.txt, bench.md and
# check.tar.gz (every log): few files, as the device tool returns at most eight.
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
results="${1:-${OUT:-/tmp/fathom-gpu-results}}"
logs=/tmp/fathom-gpu-check
build="${BUILD_DIR:-/tmp/build-gpu}"
mkdir -p "$logs" "$results"
collect() {
  for f in machine.txt tests.log update.txt bench.md; do
    [ -f "$logs/$f" ] && cp "$logs/$f" "$results/"
  done
  tar -czf "$results/check.tar.gz" -C "$logs" . 2> /dev/null
}
trap collect EXIT
t0=$SECONDS
phase() { echo "== $1 at $((SECONDS - t0)) s"; }

phase machine
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nvcc --version 2>/dev/null | tail -n 2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
    "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(0))'
  nproc
} 2>&1 | tee "$logs/machine.txt"

phase build
timeout "${BUILD_S:-330}" "$repo/scripts/gpu/build.sh" "$build" > "$logs/build.log" 2>&1
build_status=$?
if [ "$build_status" -ne 0 ]; then
  grep -E "error|FAILED" "$logs/build.log" | head -n 40
  echo "check: build exit $build_status (log: build.log); going on with what was built"
fi
[ -f "$build/env.sh" ] || { tail -n 40 "$logs/build.log"; exit 1; }
grep -E "^build:|FATHOM_CUDA_ALLOCATOR_STATS|NCCL:" "$logs/build.log" | head -n 6
# shellcheck disable=SC1091
source "$build/env.sh"

phase tests
# The tests that put tensors on the test device: the trainer end to end (fp32, bf16, fp16 with
# the loss scaler, resume with the CUDA generator, activation checkpointing, beam decoding),
# checkpointed layers, fused against explicit attention, the methods' initializations; a
# one-rank NCCL run against the plain run (issue 55) and which backend the build resolves.
(cd "$build" && FATHOM_TEST_DEVICE=cuda timeout "${TEST_S:-110}" ctest \
  -R '^(Trainer|TrainerTest|CheckpointedLayers|FusedAttention|FusedAdamW|Admin|DeepNorm|ReZero|LossScaler|Autocast|Precision|GradClip)\.|^DataParallel\.AOneRankNccl|^ReduceBackend\.' \
  -j 8 --timeout 100 --output-on-failure) > "$logs/tests.log" 2>&1
echo "check: tests exit $?"
grep -E "tests passed|Failed|\*\*\*|Not Run|SKIPPED" "$logs/tests.log" | head -n 40

phase update
# The step split (forward, backward, clip + optimizer) with the fused kernel and without, side
# by side, twice in ABBA order (the update was the whole gap to PyTorch, docs/gpu.md).
for optimizer in adam adam-foreach adam-foreach adam; do
  timeout "${UPDATE_S:-30}" "$build/bench/bench_train" base 10 0 cuda post keep bf16 0 auto \
    "$optimizer" 2>&1 | grep -E "^size|^tokens/s" | tr '\n' ' '
  echo
done | tee "$logs/update.txt"

phase bench
STEPS="${STEPS:-10}" ROUNDS="${ROUNDS:-4}" LOG_DIR="$logs/bench" timeout "${BENCH_S:-200}" \
  "$repo/scripts/gpu/bench.sh" "$build" "${PEAK_TFLOPS:-989}" 2>&1 | tee "$logs/bench.md"
phase done
