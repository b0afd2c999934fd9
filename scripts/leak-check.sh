#!/usr/bin/env bash
# LeakSanitizer over the whole test suite, without a sanitized build (docs/reliability.md,
# "Leaks"): liblsan is preloaded into every test and every fathom process a test starts (CLI
# runs, sweep workers, Slurm jobs), so a heap block still unreachable at exit makes that
# process exit 23 and its test fail. The servers (PostgreSQL, Slurm) are not preloaded.
# Known one-time allocations of Debian's libraries are suppressed in scripts/lsan.supp.
#   scripts/leak-check.sh [ctest arguments, e.g. -R Store]
set -euo pipefail
cd "$(dirname "$0")/.."
lsan=$(ls /usr/lib/*/liblsan.so.0 2>/dev/null | head -n 1 || true)
if [ -z "$lsan" ]; then
  echo "leak-check: liblsan.so.0 not found (apt-get install liblsan0)" >&2
  exit 2
fi
[ -x build/fathom ] || scripts/build.sh
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:exitcode=23:print_suppressions=0"
cd build
# ctest itself runs preloaded too (it leaks nothing), so everything it starts inherits it.
LD_PRELOAD=$lsan ctest --output-on-failure -j "$(nproc)" --timeout 1800 "$@"
