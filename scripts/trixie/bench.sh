#!/usr/bin/env bash
# Benchmarks in the LibTorch 2.6 root (issue 33, item 5), after build-test.sh cpu built
# build-trixie/:
#   1. bench_vs_reference against PyTorch 2.6 eager and torch.compile (inductor) side by side,
#      for each size x precision x threads (alternating rounds; ratios per round);
#   2. Fathom on LibTorch 2.6 (this root) against Fathom on 1.13 (the host's build, HOST_BUILD,
#      default build/): bench_train alternately, ABBA, same machine, same run.
#   scripts/trixie/bench.sh [OUT_DIR]      # default runs/trixie-bench (ignored by git)
# Environment: SIZES ("tiny small"), PRECISIONS ("fp32 bf16"), THREADS ("1 2"), ROUNDS (6),
# STEPS_tiny (10), STEPS_small (2), PAIRS (3: ABBA pairs of bench_train), HOST_BUILD.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out="${1:-$trixie_repo/runs/trixie-bench}"
sizes="${SIZES:-tiny small}"
precisions="${PRECISIONS:-fp32 bf16}"
threads_list="${THREADS:-1 2}"
rounds="${ROUNDS:-6}"
pairs="${PAIRS:-3}"
host_build="${HOST_BUILD:-$trixie_repo/build}"
trixie_build="$trixie_repo/build-trixie"
[ -x "$trixie_build/bench/bench_vs_reference" ] ||
  trixie_die "no $trixie_build/bench/bench_vs_reference: run scripts/trixie/build-test.sh cpu first"
mkdir -p "$out"
trixie_ensure cpu
trixie_enter cpu
steps_of() { local v="STEPS_$1"; echo "${!v:-$([ "$1" = tiny ] && echo 10 || echo 2)}"; }

echo "== bench_vs_reference: Fathom (LibTorch 2.6) vs PyTorch 2.6 eager and torch.compile"
for size in $sizes; do
  for precision in $precisions; do
    for threads in $threads_list; do
      log="$out/vs-reference-$size-$precision-t$threads.txt"
      echo "-- $size $precision threads=$threads -> $log"
      trixie_run "$trixie_build/bench/bench_vs_reference" size="$size" precision="$precision" \
        threads="$threads" steps="$(steps_of "$size")" rounds="$rounds" \
        reference=eager,compile > "$log" 2>&1 || echo "   (exit $?; see the log)"
      grep -E "^ratio|^first-step|load average" "$log" || true
    done
  done
done

[ -x "$host_build/bench/bench_train" ] || {
  echo "no $host_build/bench/bench_train (the host's LibTorch 1.13 build): skipping 2.6 vs 1.13"
  exit 0
}
echo "== bench_train: Fathom on LibTorch 2.6 vs 1.13, alternately (ABBA)"
tokens() { awk '/^tokens\/s/ { print $2 }'; }
for size in $sizes; do
  for precision in $precisions; do
    for threads in $threads_list; do
      log="$out/fathom-2.6-vs-1.13-$size-$precision-t$threads.txt"
      : > "$log"
      args=("$size" "$(steps_of "$size")" "$threads" cpu post keep "$precision")
      for ((i = 0; i < 2 * pairs; i++)); do
        if (( (i % 4 == 0) || (i % 4 == 3) )); then order="1.13 2.6"; else order="2.6 1.13"; fi
        for v in $order; do
          if [ "$v" = 1.13 ]; then
            t="$("$host_build/bench/bench_train" "${args[@]}" 2>&1 | tee -a "$log" | tokens)"
          else
            t="$(trixie_run "$trixie_build/bench/bench_train" "${args[@]}" 2>&1 | tee -a "$log" |
                 tokens)"
          fi
          echo "run $i libtorch $v tokens/s $t" >> "$log"
        done
      done
      # Ratio 2.6/1.13 per run index (the two builds of one index ran back to back).
      ratios="$(awk '/^run / { t[$2, $4] = $6; n = $2 + 1 }
        END { for (i = 0; i < n; i++) print t[i, "2.6"] / t[i, "1.13"] }' "$log" | sort -g)"
      echo "$ratios" | awk -v what="$size $precision threads=$threads" '
        { r[NR] = $1 }
        END { m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
              printf "%s: LibTorch 2.6 / 1.13 tokens/s, median of %d %.3f (min %.3f, max %.3f)\n",
                     what, NR, m, r[1], r[NR] }' | tee -a "$log"
    done
  done
done
