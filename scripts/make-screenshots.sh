#!/usr/bin/env bash
# The desktop app's screenshots in docs/screenshots/ (issue 36): every tab at 1100x700 (a
# laptop) and 1600x1000, with curves on them. Trains a small sweep on the synthetic task into
# a scratch store (2 norms x 3 learning rates x 2 seeds at the quickstart size, 200 updates:
# a few minutes on 2 cores; the training probes every 25 updates), records one analysis, then runs fathom-gui --screenshot under
# Xvfb (or Qt's offscreen platform where no Xvfb is installed).
#   scripts/make-screenshots.sh [BUILD_DIR] [OUT_DIR]    # defaults: build, docs/screenshots
# The store stays in $SCRATCH (default: a temporary directory, removed at the end).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$repo/build}"
out="${2:-$repo/docs/screenshots}"
fathom="$build/fathom"
gui="$build/gui/fathom-gui"
for program in "$fathom" "$gui"; do
  [ -x "$program" ] || { echo "make-screenshots: $program not built (scripts/build.sh)" >&2; exit 1; }
done
scratch="${SCRATCH:-}"
if [ -z "$scratch" ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
fi
db="$scratch/screens.db"

cat > "$scratch/screens.yaml" <<YAML
name: screens
base: $repo/configs/quickstart.yaml
set:
  train.max_updates: 200
  train.valid_every: 50
  train.log_every: 10
  train.warmup: 50
  data.synthetic.train_size: 4000
  eval.max_sentences: 50
  train.probe_every: 25
grid:
  model.norm: [post, pre]
  train.lr: [0.0005, 0.002, 0.008]
  train.seed: [1, 2]
YAML
if [ ! -s "$db" ]; then
  "$fathom" --db "$db" sweep "$scratch/screens.yaml" --jobs "$(nproc)" --no-progress
  "$fathom" --db "$db" analyze beta 1 > /dev/null  # a fresh store: the first run is 1
fi

shoot() {  # SIZE DIR
  mkdir -p "$2"
  local args=(--db "$db" --screenshot "$2" --screenshot-size "$1")
  if command -v xvfb-run > /dev/null; then
    xvfb-run -a -s "-screen 0 ${1}x24" "$gui" "${args[@]}"
  else
    QT_QPA_PLATFORM=offscreen "$gui" "${args[@]}"
  fi
}
shoot 1100x700 "$out/1100x700"
shoot 1600x1000 "$out/1600x1000"
echo "make-screenshots: $(ls "$out"/1100x700/*.png "$out"/1600x1000/*.png | wc -l) screenshots in $out"
