#!/usr/bin/env bash
# From a fresh clone: install dependencies, build, and run the main job -- a small sweep
# comparing Post-LN and Pre-LN on the synthetic task (experiments/main-job.yaml), two worker
# processes side by side -- then write its report: runs/report.md with the comparison tables.
# Results go to ./runs/fathom.db (query it with the sqlite3 shell; schema in docs/schema.md).
# Running it again continues the sweep (--resume) and rewrites the report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p runs
db=runs/fathom.db
build/fathom --db "$db" sweep experiments/main-job.yaml --jobs 2 --resume
build/fathom --db "$db" sweep status main
report=runs/report.md
{
  echo "# Main job: Post-LN vs Pre-LN (sweep \`main\`, experiments/main-job.yaml)"
  echo
  for metric in test_bleu valid_ppl test_ppl tokens_per_s; do
    echo "## $metric"
    echo
    build/fathom --db "$db" export table --sweep main --rows model.norm --metric "$metric"
    echo
  done
} > "$report"
echo
cat "$report"
echo "report: $report"
