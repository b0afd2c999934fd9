#!/usr/bin/env bash
# Builds Fathom in a cached Debian 13 root and runs the whole test suite there with ctest:
#   scripts/trixie/build-test.sh cpu  [--jobs N] [--no-test] [--target T ...] [-- CTEST ARGS]
#       LibTorch 2.6 (CPU), everything incl. the desktop app, in build-trixie/; --target builds
#       only the targets named (e.g. fathom-bench for bench.sh: every benchmark) and no tests
#   scripts/trixie/build-test.sh cuda [--jobs N] [--no-test] [-- CTEST ARGS]
#       LibTorch 2.6 built with CUDA (contrib) + the CUDA toolkit (non-free): the headless
#       targets (fathom, tests, benchmarks) in build-trixie-cuda/; the tests then run on the CPU
#       (no GPU here), through the CUDA-enabled binaries
# Prints the time of each phase (root, configure + build, tests).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
usage() { echo "usage: $0 cpu|cuda [--jobs N] [--no-test] [--target T ...] [-- CTEST ARGS]" >&2; exit 2; }
[ $# -ge 1 ] || usage
kind="$1"
shift
jobs="$(nproc)"
run_tests=1
ctest_args=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    --no-test) run_tests=""; shift ;;
    --target) targets+=(--target "$2"); run_tests=""; shift 2 ;;
    --) shift; ctest_args=("$@"); break ;;
    *) usage ;;
  esac
done
case "$kind" in
  cpu) build="$trixie_repo/build-trixie"; configure=() ;;
  # Debian's CUDA LibTorch finds the toolkit itself (nvcc in /usr/bin); no GPU to pick an
  # architecture from, so name one (H100: 9.0) as scripts/gpu/build.sh does.
  cuda) build="$trixie_repo/build-trixie-cuda"
        configure=(-DFATHOM_BUILD_GUI=OFF -DFATHOM_BUILD_PLOTS=OFF -DTORCH_CUDA_ARCH_LIST=9.0) ;;
  *) usage ;;
esac
build="${FATHOM_TRIXIE_BUILD:-$build}"
t0=$SECONDS
trixie_ensure "$kind"
echo "trixie-$kind: root ready after $((SECONDS - t0)) s"
trixie_enter "$kind"
t1=$SECONDS
mkdir -p "$build"
trixie_run cmake -S "$trixie_repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "${configure[@]}" > "$build/configure.log" 2>&1 || {
  tail -n 40 "$build/configure.log" >&2
  trixie_die "configure failed (log: $build/configure.log)"
}
grep -E "LibTorch|Torch|CUDA" "$build/configure.log" | head -n 20 || true
trixie_run cmake --build "$build" -j "$jobs" "${targets[@]}"
echo "trixie-$kind: configure + build took $((SECONDS - t1)) s"
[ -n "$run_tests" ] || exit 0
t2=$SECONDS
status=0
# Multi30k for the tests that read it, in the build's own corpora folder (docs/data.md), from
# the local copy beside the repository when there is one (the root has no network to fetch it).
corpora="$build/corpora"
if [ -d "$trixie_repo/../shared/data/multi30k" ]; then
  trixie_run env FATHOM_DATA="$corpora" "$build/fathom" data get multi30k --no-progress \
    --from "$trixie_repo/../shared/data/multi30k" || true
fi
trixie_run env FATHOM_DATA="$corpora" ctest --test-dir "$build" --output-on-failure -j "$jobs" \
  --timeout 900 "${ctest_args[@]}" || status=$?
echo "trixie-$kind: tests took $((SECONDS - t2)) s (exit $status); whole run $((SECONDS - t0)) s"
exit "$status"
