#!/usr/bin/env bash
# From a fresh clone: install dependencies, build, and run the main job -- a small comparison
# of Post-LN and Pre-LN on the synthetic task -- then print the runs and their results.
# Results go to ./runs/fathom.db (query it with the sqlite3 shell; schema in docs/schema.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p runs
db=runs/fathom.db
for norm in post pre; do
  build/fathom train experiments/quickstart.yaml --db "$db" \
    --set name=quickstart-$norm model.norm=$norm
done
echo
build/fathom runs --db "$db"
