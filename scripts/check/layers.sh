#!/usr/bin/env bash
# No include runs up the layer order of docs/architecture.md: each library folder includes only
# itself and the layers its row of the table names ("depends on"). Lists every include that
# breaks it, by file and line. Tests, benchmarks and fuzz targets may include anything.
# Usage: scripts/check/layers.sh   (ctest runs it: layers)
set -euo pipefail
cd "$(dirname "$0")/../.."
# folder -> the top-level folders its files may include (besides themselves). Keep in step with
# the table at the top of docs/architecture.md.
declare -A allowed=(
  [base]=""
  [db]="base"
  [core]="base db"
  [analysis]="base db core"
  [experiments]="base db"
  [plot]="base db experiments"
  [cli]="base db core analysis experiments plot"
  [gui]="base db experiments plot"
)
# Narrower rules inside a layer: the model knows nothing of the store.
declare -A forbidden=([core/model]="db")
bad=0
while IFS=: read -r file line include; do
  top="${file%%/*}"
  target="${include#*\"}"
  target="${target%%/*}"
  [ -d "$target" ] || continue  # a system or generated header ("moc_...", "ui_...")
  [ "$target" = "$top" ] && continue
  ok=""
  for layer in ${allowed[$top]}; do [ "$layer" = "$target" ] && ok=1; done
  if [ -z "$ok" ]; then
    echo "$file:$line: includes $target/ -- $top may include: ${allowed[$top]:-nothing else}"
    bad=$((bad + 1))
  fi
  sub="$(dirname "$file")"
  for rule in "${!forbidden[@]}"; do
    if [[ "$sub" == "$rule" || "$sub" == "$rule"/* ]] && [ "${forbidden[$rule]}" = "$target" ]; then
      echo "$file:$line: includes $target/ -- $rule includes nothing from $target/"
      bad=$((bad + 1))
    fi
  done
done < <(git ls-files 'base/*' 'db/*' 'core/*' 'analysis/*' 'experiments/*' 'plot/*' 'cli/*' \
           'gui/*' | grep -E '\.(h|cpp)$' | xargs grep -nE '^#include "[a-z_]+/' /dev/null |
         sed -E 's/^([^:]+):([0-9]+):/\1:\2:/')
if [ "$bad" -gt 0 ]; then
  echo "$bad includes run up the layer order (docs/architecture.md)"
  exit 1
fi
echo "every include follows the layer order of docs/architecture.md"
