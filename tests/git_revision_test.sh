#!/usr/bin/env bash
# cmake/git_revision.cmake against a scratch git repository: a clean checkout gives its short
# hash, a changed tracked file appends "-dirty", an untracked file or a file only touched does
# not, and outside a repository the revision is "unknown".
# Usage: tests/git_revision_test.sh CMAKE GIT_REVISION_CMAKE   (ctest runs it: git_revision)
set -euo pipefail
cmake_bin="$1" script="$2"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
repo="$scratch/repo"
mkdir "$repo"
revision() {  # the string the generated file returns
  "$cmake_bin" -DSRC="$1" -DOUT="$scratch/out.cpp" -P "$script"
  sed -n 's/.*return "\(.*\)";.*/\1/p' "$scratch/out.cpp"
}
expect() {  # WHAT GOT WANT
  if [ "$2" != "$3" ]; then echo "FAIL: $1: got '$2', want '$3'"; exit 1; fi
  echo "ok: $1: $2"
}
git -C "$repo" init -q
git -C "$repo" config user.email test@example.invalid
git -C "$repo" config user.name test
echo one > "$repo/tracked.txt"
git -C "$repo" add tracked.txt
git -C "$repo" commit -qm first
hash=$(git -C "$repo" rev-parse --short HEAD)
expect "clean checkout" "$(revision "$repo")" "$hash"
echo scratch > "$repo/untracked.txt"
expect "an untracked file" "$(revision "$repo")" "$hash"
touch -d '2001-01-01' "$repo/tracked.txt"
expect "a tracked file only touched" "$(revision "$repo")" "$hash"
echo two >> "$repo/tracked.txt"
expect "a changed tracked file" "$(revision "$repo")" "$hash-dirty"
git -C "$repo" commit -qam second
expect "committed again" "$(revision "$repo")" "$(git -C "$repo" rev-parse --short HEAD)"
mkdir "$scratch/plain"
expect "no repository" "$(revision "$scratch/plain")" "unknown"
