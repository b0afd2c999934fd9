#!/usr/bin/env bash
# A long fault campaign by hand (docs/reliability.md): every case of the campaign on both stores
# -- a 4-run sweep SIGKILLed KILLS times at random moments (its process group, one worker, or
# the scheduler alone) and resumed after each kill, two schedulers of one sweep at once, and
# SQLite's lock held past the retry budget and damaged page -- each store ending equal to an
# uninterrupted run of the same sweep. The PostgreSQL cases use a throwaway server of this
# script's own (scripts/pg-test-server.sh; where it cannot start, they report SKIPPED). CI runs
# the same test program with 6 kills (ctest -L faults, with ctest's server).
#   scripts/fault-campaign.sh [KILLS (default 100)] [SEED (default: random, printed)]
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-100}
seed=${2:-$RANDOM$RANDOM}
[ -x build/tests/test_fault_campaign ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
# Runs long enough for every kill to land before the sweep ends (~1 ms an update on 2 cores).
updates=$(( kills * 200 > 1500 ? kills * 200 : 1500 ))
if [ -z "${FATHOM_TEST_PG_DIR:-}" ]; then
  parent=$(mktemp -d /tmp/fathom-campaign-pg-XXXXXX)
  chmod 755 "$parent"   # the server's user writes its socket there
  export FATHOM_TEST_PG_DIR="$parent/server"
  trap 'scripts/pg-test-server.sh stop "$FATHOM_TEST_PG_DIR" >/dev/null; rm -rf "$parent"' EXIT
  scripts/pg-test-server.sh start "$FATHOM_TEST_PG_DIR"
fi
FATHOM_FAULT_KILLS=$kills FATHOM_FAULT_UPDATES=$updates FATHOM_FAULT_SEED=$seed \
  build/tests/test_fault_campaign
