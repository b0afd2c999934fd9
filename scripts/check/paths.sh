#!/usr/bin/env bash
# Every repository path a document or a comment names exists: `core/data/batch.h`, a folder, or
# a source's stem (`base/util/utf8` for utf8.h/.cpp, `bench/bench_data` for its program). A
# placeholder in capitals (`configs/corpora/NAME.yaml`) or a prefix (`fuzz/fuzz_`) is a pattern,
# not a path. Also every docs/methods.md section cited as "methods.md sN" is one. Lists each
# path or section that is not there, by file and line.
# Usage: scripts/check/paths.sh   (ctest runs it: named_paths)
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then echo "SKIPPED: not a git checkout"; exit 0; fi
tops='base|db|core|analysis|experiments|plot|gui|cli|bench|tests|fuzz|configs|docs|scripts|resources|\.ci'
# Paths named as examples of what a user or a test writes, or a command's output whose files
# take another name (one a run), not files of the repository.
examples=" configs/my.yaml configs/small.yaml docs/figures/probes-depth18-stream.rms.png "
exists() {
  local p=$1
  [ -e "$p" ] && return 0
  for ext in .h .cpp .sh .py .yaml; do [ -e "$p$ext" ] && return 0; done
  return 1
}
missing=0
while IFS=: read -r file line path; do
  [[ "$path" =~ [A-Z]{3,} || "$path" == *...* || "$path" == *"{"* ]] && continue  # a pattern
  [[ "$path" == *_ || "$path" == *- ]] && continue                                 # a prefix
  [[ "$examples" == *" $path "* ]] && continue
  exists "$path" && continue
  echo "$file:$line: names $path, which is not in the repository"
  missing=$((missing + 1))
done < <(git ls-files | grep -E '\.(md|h|cpp|sh|yaml|txt|cmake)$|CMakeLists.txt' |
         grep -v '^docs/studies/' |
         xargs grep -noE "(^|[^A-Za-z0-9_./-])($tops)/[A-Za-z0-9_./+{},-]*[A-Za-z0-9_+}]" |
         sed -E "s/^([^:]+):([0-9]+):.?(($tops)\/.*)$/\1:\2:\3/")
# And every section of docs/methods.md a comment or document cites ("methods.md s5.2") is one.
while IFS=: read -r file line section; do
  number="${section##*s}"
  number="${number%.}"
  grep -qE "^#+ ${number//./\\.}[. ]" docs/methods.md && continue
  echo "$file:$line: cites methods.md s$number, which docs/methods.md does not have"
  missing=$((missing + 1))
done < <(git ls-files | grep -E '\.(md|h|cpp)$' | grep -v '^docs/studies/' |
         xargs grep -noE 'methods\.md s[0-9]+(\.[0-9]+)?' | sed -E 's/methods\.md //')
if [ "$missing" -gt 0 ]; then
  echo "$missing named paths or cited sections are not there: correct the name or the text"
  exit 1
fi
echo "every repository path the docs and comments name exists"
