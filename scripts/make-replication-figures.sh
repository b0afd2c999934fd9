#!/usr/bin/env bash
# The figures of docs/replication.md (issue 63) from the GPU run's store, without training:
#   replicate-18l-valid-ppl.png   validation perplexity against update, the three runs (log y)
#   replicate-18l-train-loss.png  training loss against update
#   replicate-18l-grad-norms.png  each layer's gradient norm at the last logged update of
#                                 training (train.grad_norm_every), embedding to top decoder layer
#   replicate-18l-beta-RUN-{encoder,decoder}.png   beta of each run's last model (stored analyses)
#   replicate-18l-grad-norms-init-RUN.png   each sub-layer's ||dL/dx|| at initialisation (the
#                                 stored grad-norms analyses at init; Liu et al. 2020, fig. 3)
# RUN is norm-init of seed 1; a second seed's analyses get -seedN.
# Usage: scripts/make-replication-figures.sh [DB]   (default: docs/studies/replicate-18l-gpu.db.xz
#        restored into a temporary folder; a few seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/figures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=${1:-}
if [ -z "$db" ]; then
  db="$tmp/replicate.db"
  scripts/study-store.sh restore replicate-18l-gpu "$db" > /dev/null
fi
fathom="build/fathom --db $db"
sweep=replicate-18l-gpu

$fathom export plot curves --sweep "$sweep" --metric valid_ppl --logy \
  --size 3.3x2.4 --dpi 150 -o "$out/replicate-18l-valid-ppl.png"
$fathom export plot curves --sweep "$sweep" --metric train_loss \
  --no-spikes --size 3.3x2.4 --dpi 150 -o "$out/replicate-18l-train-loss.png"

# Gradient norms by depth: the trainer's per-layer norms (gradnorm.embed, gradnorm.enc.K,
# gradnorm.dec.K) at each run's last logged point, as one line per run over the positions.
python3 - "$db" "$tmp/grad-norms.json" <<'PY'
import json, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
series, labels = [], None
for rid, name in db.execute("select id, name from runs where sweep = 'replicate-18l-gpu' order by id"):
    last = db.execute("select max(step) from metrics where run_id = ? and name like 'gradnorm.enc.%'",
                      (rid,)).fetchone()[0]
    rows = dict(db.execute("select name, value from metrics where run_id = ? and step = ? and "
                           "name like 'gradnorm.%'", (rid, last)).fetchall())
    def order(key):
        m = re.match(r"gradnorm\.(enc|dec)\.(\d+)$", key)
        return (0, 0) if key == "gradnorm.embed" else (1 if m.group(1) == "enc" else 2, int(m.group(2)))
    keys = sorted((k for k in rows if k == "gradnorm.embed" or re.match(r"gradnorm\.(enc|dec)\.\d+$", k)),
                  key=order)
    labels = [k[len("gradnorm."):] for k in keys]
    series.append({"name": name.split("/", 1)[-1],
                   "x": list(range(len(keys))), "y": [rows[k] for k in keys]})
figure = {"kind": "line", "title": "",
          "x": {"label": "layer: 0 embeddings, 1-18 encoder, 19-36 decoder", "whole_numbers": True},
          "y": {"label": f"gradient norm at update {last}", "scale": "log"}, "series": series}
json.dump(figure, open(sys.argv[2], "w"))
PY
$fathom export plot figure "$tmp/grad-norms.json" --size 6.9x2.8 --dpi 150 \
  -o "$out/replicate-18l-grad-norms.png"

# beta of each run's last model, from the analyses stored in the run (`fathom analyze list`).
# beta of each run's last model and the gradient norms at initialisation, from the analyses
# stored in the run (`fathom analyze list`).
$fathom analyze list | awk '($3 == "beta" && $4 == "last") || ($3 == "grad-norms" && $4 == "init") {
    print $1, $2, $3 }' | while read -r analysis run kind; do
  label=$(sqlite3 "$db" "select json_extract(config_json, '$.model.norm') || '-' ||
                         json_extract(config_json, '$.model.init') ||
                         case json_extract(config_json, '$.train.seed') when 1 then ''
                         else '-seed' || json_extract(config_json, '$.train.seed') end
                         from runs where id = $run")
  name=beta size=column
  [ "$kind" = grad-norms ] && name=grad-norms-init size=page  # 18 layers' labels need the width
  $fathom --json analyze show "$analysis" > "$tmp/$kind-$run.json"
  $fathom export plot analysis "$tmp/$kind-$run.json" --kind "$kind" --dpi 150 --size "$size" \
    -o "$out/replicate-18l-$name-$label.png"
done
ls -1 "$out"/replicate-18l-*
