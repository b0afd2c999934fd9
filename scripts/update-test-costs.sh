#!/usr/bin/env bash
# Refreshes tests/ctest-costs.txt, the seconds each ctest test took, from a build's own record
# (BUILD/Testing/Temporary/CTestCostData.txt, written by every ctest run). ctest starts the
# longest tests first when it knows their times; a fresh clone's build knows none, and started
# them in the order they are defined, the long ones often last (scripts/run-tests.sh copies
# this file into a build that has no record). A stale or missing entry only costs scheduling.
# Usage: scripts/update-test-costs.sh [BUILD (default build)]   -- after a whole `ctest -j2`
set -euo pipefail
cd "$(dirname "$0")/.."
record="${1:-build}/Testing/Temporary/CTestCostData.txt"
out=tests/ctest-costs.txt
[ -f "$record" ] || { echo "update-test-costs: no $record (run ctest there first)" >&2; exit 1; }
# The file is ctest's own format (name, runs, seconds; no comments), from a whole run on 2 cores.
{
  # A name is everything before the last two fields; older builds named parameterised tests
  # "X/p  # GetParam() = ...", which ctest cannot read back: the comment is dropped.
  awk '/^---/ {exit} NF >= 3 {
         cost = $NF; NF -= 2; name = $0; sub(/ +# GetParam\(\) = .*/, "", name)
         if (name !~ / /) printf "%s 1 %.1f\n", name, cost
       }' "$record" | sort
} > "$out.new"
mv "$out.new" "$out"
echo "$out: $(wc -l < "$out") tests"
