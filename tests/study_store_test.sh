#!/usr/bin/env bash
# scripts/study-store.sh round trip: a two-run sweep of the tiny test model is saved (the store
# and its evaluation files), its own artifacts are removed, and the restored copy still gives
# `fathom compare` its paired BLEU and perplexity tests from the restored files; saving again
# writes the same bytes (no git diff for an unchanged study).
# Usage: tests/study_store_test.sh FATHOM   (ctest runs it: study_store)
set -euo pipefail
fathom=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$scratch/tiny.yaml" <<'YAML'
name: tiny
device: cpu
model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}
data:
  task: synthetic
  synthetic: {vocab: 8, train_size: 300, valid_size: 20, test_size: 10}
  max_tokens: 256
train: {lr: 0.005, warmup: 10, max_updates: 40, valid_every: 20, log_every: 10}
eval: {beam: 1, max_sentences: 5}
YAML
printf 'name: s\nbase: tiny.yaml\ngrid:\n  train.lr: [0.005, 0.001]\n' > "$scratch/sweep.yaml"
mkdir "$scratch/trained" "$scratch/studies"
(cd "$scratch" && "$fathom" --db trained/s.db sweep sweep.yaml --jobs 1 --no-progress > /dev/null)
[ -f "$scratch/trained/s.artifacts/run-1/test.g1.hyp" ] || fail "the sweep kept no hypotheses"
export STUDY_DIR=$scratch/studies FATHOM_BIN=$fathom
"$repo/scripts/study-store.sh" save "$scratch/trained/s.db" s
[ -f "$scratch/studies/s.eval.tar.xz" ] || fail "no evaluation files saved"
listed=$(xz -dc "$scratch/studies/s.eval.tar.xz" | tar -tf - | sort | paste -sd' ')
want="run-1/test.g1.hyp run-1/test.g1.nll run-1/valid.g1.nll run-2/test.g1.hyp run-2/test.g1.nll run-2/valid.g1.nll"
[ "$listed" = "$want" ] || fail "saved '$listed', want '$want' (no checkpoint, no log)"
first=$(sha256sum < "$scratch/studies/s.eval.tar.xz")
"$repo/scripts/study-store.sh" save "$scratch/trained/s.db" s > /dev/null
[ "$(sha256sum < "$scratch/studies/s.eval.tar.xz")" = "$first" ] || fail "saving again changed the bytes"
rm -rf "$scratch/trained"
"$repo/scripts/study-store.sh" restore s "$scratch/restored/r.db"
cmp <(xz -dc "$scratch/studies/s.eval.tar.xz" | tar -xOf - run-2/test.g1.hyp) \
  "$scratch/restored/r.artifacts/run-2/test.g1.hyp" || fail "restored hypotheses differ"
out=$("$fathom" --db "$scratch/restored/r.db" compare 1 2)
for line in "Test BLEU against run 1" "Test perplexity against run 1"; do
  grep -q "$line" <<< "$out" || fail "compare on the restored study lacks '$line':
$out"
done
if "$repo/scripts/study-store.sh" restore s "$scratch/restored/r.db" 2> /dev/null; then
  fail "restore overwrote a store"
fi
# Its store deleted, a restore beside the old evaluation files refuses rather than mixing them.
rm "$scratch/restored/r.db"
if err=$("$repo/scripts/study-store.sh" restore s "$scratch/restored/r.db" 2>&1); then
  fail "restore put a store beside another store's evaluation files"
fi
grep -q "r.artifacts holds files of another store" <<< "$err" || fail "unclear refusal: $err"
[ ! -e "$scratch/restored/r.db" ] || fail "a refused restore left a store behind"
# A relative DB is the caller's: restored where the caller stands, not at the repository's root.
mkdir "$scratch/here"
(cd "$scratch/here" && "$repo/scripts/study-store.sh" restore s rel.db > /dev/null)
[ ! -e "$repo/rel.db" ] || { rm -rf "$repo/rel.db" "$repo/rel.artifacts"; fail "a relative DB went to the repository's root"; }
[ -f "$scratch/here/rel.db" ] || fail "a relative DB was not restored beside its caller"
(cd "$scratch/here" && "$repo/scripts/study-store.sh" save rel.db s2 > /dev/null)
[ -f "$scratch/studies/s2.db.xz" ] || fail "a relative DB was not saved"
echo "ok: saved, restored and compared from the restored evaluation files"
