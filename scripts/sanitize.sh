#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer in ./build-asan and runs
# the whole test suite under them (docs/reliability.md, "Sanitizers"). A report stops the
# program it is in (-fno-sanitize-recover=all), so the test fails and ctest names it.
#   scripts/sanitize.sh [ctest arguments, e.g. -R Store]
# LibTorch, Qt and the other libraries are Debian's, not rebuilt: what they do inside is not
# checked, and leaks are not checked (LeakSanitizer would report those libraries' one-time
# allocations). Takes a clean build (~2x the normal one) and ~3x the normal test time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g1 \
  -DFATHOM_SANITIZE=address,undefined -DFATHOM_BUILD_BENCH=OFF -DFATHOM_TEST_SUITE_PROCESSES=OFF
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Not run: the tests that load SentencePiece. It is dlopen()ed with RTLD_DEEPBIND (its bundled
# protobuf clashes with LibTorch's, core/data/sentencepiece_runtime.cpp), which ASan refuses
# (google/sanitizers#611); loaded without DEEPBIND under ASan, the first test hung at load.
unsanitizable='^(SentencePiece\.|LoadDataset\.ParallelWithRelativePathsAndOptionalSplits$|LoadDataset\.Multi30kLoadsAgainFromTheCache$)'
echo "sanitize: not run under ASan (SentencePiece is loaded with RTLD_DEEPBIND): tests matching $unsanitizable"
cd build-asan
ctest --output-on-failure -j "$(nproc)" --timeout 2700 -E "$unsanitizable" "$@"
