#!/usr/bin/env bash
# Run ON THE GPU MACHINE, in the repository root, with .debs/ carried: the GPU check of issues
# 34 and 62 in one call -- the machine, the build, the CUDA tests, the update with the fused
# AdamW kernel and with the foreach ops, and bench.sh's table against PyTorch eager and
# torch.compile. It is scripts/gpu/lease.sh without the paper-scale run (docs/gpu.md):
#   scripts/gpu/check.sh [RESULT_DIR]   # default $OUT (the device tool's folder)
# lease.sh's variables apply (DEADLINE_S, TRAINER_TESTS, BENCH_SETTINGS, STEPS, ROUNDS, ...).
exec env PHASES="${PHASES:-build tests update bench}" "$(dirname "$0")/lease.sh" "$@"
