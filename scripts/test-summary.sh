#!/usr/bin/env bash
# scripts/test-summary.sh [BUILD_DIR]: after ctest, the gtest tests of its last run counted one
# by one -- passed, skipped (each with its reason), failed. ctest runs the LibTorch programs a
# suite per process (cmake/test_suites.cmake), so its own summary counts suites and shows a
# suite with a skipped test as passed; this says which tests inside did not run, and why.
set -euo pipefail
build=${1:-build}
log=$build/Testing/Temporary/LastTest.log
[ -f "$log" ] || { echo "test-summary: no $log (has ctest run?)" >&2; exit 2; }
# gtest writes "[  SKIPPED ] Suite.Test (N ms)" after the reason, which follows a "...: Skipped"
# line; its closing list repeats the names without "(N ms)", so only the timed lines count.
awk '
  /^\[       OK \] .* \([0-9]+ ms\)$/ { passed++ }
  /^\[  FAILED  \] .* \([0-9]+ ms\)$/ { failed++; failures = failures "  " $4 "\n" }
  /: Skipped$/ { reason = ""; collecting = 1; next }
  /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ {
    skipped++
    sub(/\n$/, "", reason); gsub(/\n/, " ", reason)
    skips = skips "  " $4 ": " (reason == "" ? "(no reason given)" : reason) "\n"
    collecting = 0; reason = ""; next
  }
  /^\[ RUN      \]/ { collecting = 0; reason = "" }
  collecting { reason = reason $0 "\n" }
  END {
    printf "gtest tests: %d passed, %d skipped, %d failed\n", passed, skipped, failed
    if (skipped) printf "skipped:\n%s", skips
    if (failed) printf "failed:\n%s", failures
  }' "$log"
