#!/usr/bin/env bash
# Fuzzes Fathom's input readers with libFuzzer (fuzz/, docs/reliability.md "Fuzzing"):
# builds the fuzz targets with clang 14, ASan and UBSan in ./build-fuzz, then runs each for a
# bounded time from its seeds (configs/ and sweeps, fuzz/seeds/, real stores, and
# every regression input) plus the corpus earlier sessions grew (build-fuzz/corpus/, kept).
#   scripts/fuzz.sh [--seconds N] [TARGET ...]     (default 60 s each; all targets)
# Prints, per target, executions, time, coverage and findings. A finding (crash, sanitizer
# report, escaped non-InputError exception, failed invariant, hang > 10 s, > 2 GB) is left in
# build-fuzz/findings/TARGET/; fix it, then copy it to fuzz/regressions/TARGET/ so the test
# suite replays it forever (ctest -L fuzz). Exits 1 when anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(config sweep text bleu store cli query)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

scripts/install-deps.sh --fuzz
mkdir -p build-fuzz
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFATHOM_FUZZ=ON -DFATHOM_BUILD_GUI=OFF -DFATHOM_BUILD_TESTS=OFF -DFATHOM_BUILD_BENCH=OFF \
  -DFATHOM_BUILD_PLOTS=OFF > build-fuzz/configure.log
cmake --build build-fuzz -j "$(nproc)" --target fuzz_make_store_seeds $(printf 'fuzz_%s ' "${targets[@]}")

build-fuzz/fuzz/fuzz_make_store_seeds build-fuzz/seeds/store > /dev/null
seeds_for() {
  case $1 in
    config|sweep) echo configs ;;  # the repo's own configs and sweeps (libFuzzer reads subfolders)
    store) echo build-fuzz/seeds/store ;;
  esac
  for dir in fuzz/seeds/$1 fuzz/regressions/$1; do [ -d "$dir" ] && echo "$dir"; done
  return 0
}

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1  # a report with its stack
found=0
printf '%-8s %12s %8s %8s %8s %s\n' target executions seconds "exec/s" coverage findings
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t findings=build-fuzz/findings/$t log=build-fuzz/fuzz-$t.log
  mkdir -p "$corpus" "$findings"
  seed_dirs=($(seeds_for "$t"))
  before=$(ls "$findings" | wc -l)
  set +e
  build-fuzz/fuzz/fuzz_$t -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "${seed_dirs[@]}" > "$log" 2>&1
  rc=$?
  set -e
  after=$(ls "$findings" | wc -l)
  # (A run that crashed at once has no "Done" or "cov:" line: these may find nothing.)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  rate=$(( ${runs:-0} / ( ${secs:-1} > 0 ? ${secs:-1} : 1 ) ))
  printf '%-8s %12s %8s %8s %8s %s\n' "$t" "${runs:--}" "${secs:--}" "$rate" "${cov:--}" \
    "$(( after - before )) new (rc $rc; log $log)"
  if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then found=1; fi
done
[ "$found" -eq 0 ] || { echo "fuzz: findings in build-fuzz/findings/ (see the logs)"; exit 1; }
