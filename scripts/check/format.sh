#!/usr/bin/env bash
# Every tracked C++ file is as .clang-format lays it out. Lists the files that are not, and how
# to fix them. Needs clang-format-14 (scripts/install-deps.sh --test installs it); says SKIPPED
# (ctest shows it as skipped) where it is missing or the tree is not a git checkout -- except
# under scripts/run-tests.sh (CI), which sets FATHOM_CHECKS_REQUIRED=1: there a check that
# cannot run fails, so that a missing tool never passes for a clean tree.
# Usage: scripts/check/format.sh   (ctest runs it: clang_format)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
formatter="$(command -v clang-format-14 || true)"
if [ -z "$formatter" ]; then
  if [ "${FATHOM_CHECKS_REQUIRED:-0}" = 1 ]; then
    echo "clang-format-14 is not installed, and FATHOM_CHECKS_REQUIRED=1: install it" \
      "(scripts/install-deps.sh --test)"
    exit 1
  fi
  echo "SKIPPED: clang-format-14 is not installed"
  exit 0
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then echo "SKIPPED: not a git checkout"; exit 0; fi
mapfile -t files < <(git ls-files '*.cpp' '*.h')
# One run over all files; -Werror reports each file that differs as "FILE:LINE:COL: error".
mapfile -t differ < <("$formatter" --dry-run -Werror "${files[@]}" 2>&1 |
                      sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error:.*/\1/p' | sort -u)
if [ "${#differ[@]}" -gt 0 ]; then
  echo "${#differ[@]} of ${#files[@]} C++ files differ from .clang-format:"
  printf '  %s\n' "${differ[@]}"
  echo "fix with: clang-format-14 -i ${differ[*]}"
  exit 1
fi
echo "${#files[@]} C++ files follow .clang-format"
