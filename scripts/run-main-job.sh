#!/usr/bin/env bash
# From a fresh clone: install dependencies, build, and run the main job -- a small sweep
# comparing Post-LN and Pre-LN on the synthetic task (configs/main-job.yaml), two worker
# processes side by side -- then write its report: runs/report/report.md with the comparison
# tables and training curves.
# Results go to ./runs/fathom.db (query it with the sqlite3 shell; schema in docs/schema.md).
# Running it again continues the sweep (--resume) and rewrites the report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p runs
db=runs/fathom.db
build/fathom --db "$db" sweep configs/main-job.yaml --jobs 2 --resume
build/fathom --db "$db" sweep status main
# The report: outcomes, comparison tables (BLEU, perplexity, time) and training curves.
report=$(build/fathom --db "$db" report main --out runs/report)
echo
cat "$report"
echo "report: $report (figures beside it)"
