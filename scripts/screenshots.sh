#!/usr/bin/env bash
# The desktop app's screenshots in docs/screenshots/1100x700/ and 1600x1000/ (issue 58), taken
# the way a researcher sees the app: the lm-depth-2025 study restored into a scratch store
# (scripts/study-store.sh) while configs/main-job.yaml trains into it with one job (probed),
# so the runs table, dashboard, probes and run page show a run training. fathom-gui
# --screenshot makes a PNG per view under Xvfb (the sweep editor holding the main job's sweep;
# run-page.png: the running run's page; shortcuts.png: Help's list); optipng shrinks them
# where it is installed (apt-get install optipng).
#   scripts/screenshots.sh [BUILD_DIR] [OUT_DIR]    # defaults: build, docs/screenshots
# The scratch store is $SCRATCH/x.db (default: a temporary directory, removed at the end).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
out="${2:-$repo/docs/screenshots}"
fathom="$build/fathom"
gui="$build/gui/fathom-gui"
for program in "$fathom" "$gui"; do
  [ -x "$program" ] || { echo "screenshots: $program not built (scripts/build.sh)" >&2; exit 1; }
done
for tool in xvfb-run sqlite3; do
  command -v "$tool" > /dev/null || { echo "screenshots: needs $tool (apt-get install ${tool/xvfb-run/xvfb})" >&2; exit 1; }
done
scratch="${SCRATCH:-}"
if [ -z "$scratch" ]; then
  scratch="$(mktemp -d)"
  remove_scratch=1
fi
db="$scratch/x.db"
sweep_pid=""
cleanup() {
  # SIGTERM: the scheduler stops its worker, which marks its run cancelled and exits.
  if [ -n "$sweep_pid" ] && kill -0 "$sweep_pid" 2> /dev/null; then
    kill -TERM "$sweep_pid" 2> /dev/null || true
    wait "$sweep_pid" 2> /dev/null || true
  fi
  if [ -n "${remove_scratch:-}" ]; then rm -rf "$scratch"; fi
}
trap cleanup EXIT

[ -e "$db" ] || "$repo/scripts/study-store.sh" restore lm-depth-2025 "$db"
# Probed every 20 updates, so the Probes tab has the live run's probes to draw.
(cd "$repo" && exec "$fathom" --db "$db" sweep configs/main-job.yaml --jobs 1 --no-progress \
  --set train.probe_every=20) > "$scratch/sweep.log" 2>&1 &
sweep_pid=$!

# Until a run of the sweep trains and has logged some points (at most 5 minutes).
points() {
  sqlite3 "$db" "select count(*) from metrics m join runs r on r.id = m.run_id
                 where r.status = 'running' and m.name = 'train_loss'" 2> /dev/null || echo 0
}
for _ in $(seq 300); do
  [ "$(points)" -ge 10 ] && break
  kill -0 "$sweep_pid" 2> /dev/null || { echo "screenshots: the sweep stopped:" >&2; tail "$scratch/sweep.log" >&2; exit 1; }
  sleep 1
done
[ "$(points)" -ge 10 ] || { echo "screenshots: no run trained within 5 minutes" >&2; exit 1; }

# The app's remembered settings (log y, columns, groups) are the scratch store's own, not the
# settings of whoever runs this.
export XDG_CONFIG_HOME="$scratch/config"
for size in 1100x700 1600x1000; do
  mkdir -p "$out/$size"
  xvfb-run -a -s "-screen 0 1920x1200x24" \
    "$gui" --db "$db" --sweep "$repo/configs/main-job.yaml" --screenshot "$out/$size" \
    --screenshot-size "$size" > /dev/null
done
if command -v optipng > /dev/null; then
  optipng -quiet -o2 "$out"/1100x700/*.png "$out"/1600x1000/*.png
fi
echo "screenshots: $(ls "$out"/1100x700/*.png "$out"/1600x1000/*.png | wc -l) PNGs in $out ($(du -ch "$out"/1100x700/*.png "$out"/1600x1000/*.png | tail -1 | cut -f1))"
