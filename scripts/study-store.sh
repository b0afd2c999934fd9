#!/usr/bin/env bash
# A study's store kept in the repository (docs/studies/README.md): the runs, configs and
# metrics behind a verdict in docs/methods-notes.md, compacted and xz-compressed (a few
# hundred KB; checkpoints stay out). A study longer than one session is saved unfinished and
# continued next time with `fathom sweep PRESET --resume`.
#   scripts/study-store.sh save DB NAME      DB -> docs/studies/NAME.db.xz
#   scripts/study-store.sh restore NAME DB   docs/studies/NAME.db.xz -> DB (refuses to overwrite)
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '6,7p' "$0" | sed 's/^#  *//' >&2; exit 2; }
[ $# -eq 3 ] || usage
for tool in sqlite3 xz; do
  command -v "$tool" > /dev/null || { echo "study-store: needs $tool (apt-get install $tool)" >&2; exit 1; }
done
case $1 in
  save)
    db=$2 name=$3 out=docs/studies/$3.db.xz
    [ -f "$db" ] || { echo "study-store: no store $db" >&2; exit 1; }
    running=$(sqlite3 "$db" "select count(*) from runs where status = 'running'")
    # A run in flight would be continued next time from a checkpoint this file does not hold.
    [ "$running" -eq 0 ] || { echo "study-store: $db has $running running runs; stop the sweep (SIGTERM lets them finish) and save again" >&2; exit 1; }
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    sqlite3 "$db" "VACUUM INTO '$tmp/$name.db'"   # one file, WAL folded in, free pages dropped
    xz -9e -T1 -c "$tmp/$name.db" > "$tmp/$name.db.xz"
    mv "$tmp/$name.db.xz" "$out"
    echo "saved $(sqlite3 "$tmp/$name.db" "select status || ' ' || count(*) from runs group by status" | paste -sd, -) -> $out ($(du -k "$out" | cut -f1) KB)"
    ;;
  restore)
    name=$2 db=$3 in=docs/studies/$2.db.xz
    [ -f "$in" ] || { echo "study-store: no saved study $in" >&2; exit 1; }
    [ ! -e "$db" ] || { echo "study-store: $db exists; restore into a new path" >&2; exit 1; }
    mkdir -p "$(dirname "$db")"
    xz -dc "$in" > "$db.part" && mv "$db.part" "$db"
    echo "restored $in -> $db: $(sqlite3 "$db" "select status || ' ' || count(*) from runs group by status" | paste -sd, -)"
    # A saved study may predate this build's schema: the exports read only the latest.
    if [ -x build/fathom ]; then build/fathom --db "$db" db upgrade; fi
    ;;
  *) usage ;;
esac
