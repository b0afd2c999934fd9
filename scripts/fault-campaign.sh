#!/usr/bin/env bash
# A long fault campaign by hand (docs/reliability.md): a 4-run sweep is SIGKILLed KILLS times
# at random moments (its process group, one worker, or the scheduler alone) and resumed after
# each kill; the final store must equal an uninterrupted run of the same sweep. CI runs the
# same test with 6 kills (ctest -L faults).
#   scripts/fault-campaign.sh [KILLS (default 100)] [SEED (default: random, printed)]
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-100}
seed=${2:-$RANDOM$RANDOM}
[ -x build/tests/test_fault_campaign ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
# Runs long enough for every kill to land before the sweep ends (~1 ms an update on 2 cores).
updates=$(( kills * 200 > 1500 ? kills * 200 : 1500 ))
FATHOM_FAULT_KILLS=$kills FATHOM_FAULT_UPDATES=$updates FATHOM_FAULT_SEED=$seed \
  exec build/tests/test_fault_campaign
