#!/usr/bin/env bash
# A study's store kept in the repository (docs/studies/README.md): the runs, configs and
# metrics behind a verdict in docs/methods-notes.md, compacted and xz-compressed (a few
# hundred KB; checkpoints stay out). A study longer than one session is saved unfinished and
# continued next time with `fathom sweep PRESET --resume`.
#   scripts/study-store.sh save DB NAME      DB -> docs/studies/NAME.db.xz (+ NAME.eval.tar.xz)
#   scripts/study-store.sh restore NAME DB   docs/studies/NAME.db.xz -> DB (refuses to overwrite)
# The files the tests over a test set read -- each run's test hypotheses and NLL per valid and
# test segment -- travel beside the store as NAME.eval.tar.xz, from and to the store's default
# artifacts folder (DIR/STEM.artifacts/run-ID/, db/run_paths.h; $FATHOM_ARTIFACTS instead where
# set), so `fathom compare` and `export verdicts --paired-bootstrap` work on a restored study.
# $STUDY_DIR: where saved studies are (docs/studies); $FATHOM_BIN: the fathom that upgrades a
# restored store's schema (build/fathom).
set -euo pipefail
# DB is the caller's path: made absolute before the script moves to the repository's root.
if [ $# -eq 3 ]; then
  case $1 in
    save) set -- "$1" "$(realpath -m -- "$2")" "$3" ;;
    restore) set -- "$1" "$2" "$(realpath -m -- "$3")" ;;
  esac
fi
cd "$(dirname "$0")/.."
usage() { sed -n '6,7p' "$0" | sed 's/^#  *//' >&2; exit 2; }
study_dir=${STUDY_DIR:-docs/studies}
fathom_bin=${FATHOM_BIN:-build/fathom}
artifacts_of() {  # DB -> its artifacts folder
  local base
  base=$(basename "$1")
  echo "${FATHOM_ARTIFACTS:-$(dirname "$1")/${base%.*}.artifacts}"
}
eval_kinds="'hypotheses', 'valid_nll', 'test_nll'"
[ $# -eq 3 ] || usage
for tool in sqlite3 xz; do
  command -v "$tool" > /dev/null || { echo "study-store: needs $tool (apt-get install $tool)" >&2; exit 1; }
done
case $1 in
  save)
    db=$2 name=$3 out=$study_dir/$3.db.xz
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
    artifacts=$(artifacts_of "$db")
    sqlite3 -separator ' ' "$db" "select run_id, path from artifacts where kind in ($eval_kinds)" |
      while read -r id path; do
        file="run-$id/$(basename "$path")"
        if [ -f "$artifacts/$file" ]; then echo "$file"; fi
      done > "$tmp/files"
    if [ -s "$tmp/files" ]; then  # the same bytes for the same files: no diff in git
      tar -C "$artifacts" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
        -cf - -T "$tmp/files" | xz -9e -T1 > "$tmp/$name.eval.tar.xz"
      mv "$tmp/$name.eval.tar.xz" "$study_dir/$name.eval.tar.xz"
      echo "saved $(wc -l < "$tmp/files") evaluation files of $artifacts -> $study_dir/$name.eval.tar.xz ($(du -k "$study_dir/$name.eval.tar.xz" | cut -f1) KB)"
    fi
    ;;
  restore)
    name=$2 db=$3 in=$study_dir/$2.db.xz
    [ -f "$in" ] || { echo "study-store: no saved study $in" >&2; exit 1; }
    [ ! -e "$db" ] || { echo "study-store: $db exists; restore into a new path" >&2; exit 1; }
    # Another store's evaluation files there would be read as this one's runs' (same run ids).
    if [ -f "$study_dir/$name.eval.tar.xz" ]; then
      artifacts=$(artifacts_of "$db")
      if [ -n "$(ls -A "$artifacts" 2>/dev/null)" ]; then
        echo "study-store: $artifacts holds files of another store; remove it or restore into a new path" >&2
        exit 1
      fi
    fi
    mkdir -p "$(dirname "$db")"
    xz -dc "$in" > "$db.part" && mv "$db.part" "$db"
    echo "restored $in -> $db: $(sqlite3 "$db" "select status || ' ' || count(*) from runs group by status" | paste -sd, -)"
    if [ -f "$study_dir/$name.eval.tar.xz" ]; then
      artifacts=$(artifacts_of "$db")
      mkdir -p "$artifacts"
      xz -dc "$study_dir/$name.eval.tar.xz" | tar -C "$artifacts" --keep-old-files -xf -
      echo "restored $(xz -dc "$study_dir/$name.eval.tar.xz" | tar -tf - | wc -l) evaluation files -> $artifacts"
    fi
    # A saved study may predate this build's schema: the exports read only the latest.
    if [ -x "$fathom_bin" ]; then "$fathom_bin" --db "$db" db upgrade; fi
    ;;
  *) usage ;;
esac
