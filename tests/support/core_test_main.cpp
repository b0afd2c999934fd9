// main() of the LibTorch test executables (tests/core/): gtest's, after one CPU thread per
// process (configure_threads(1): one LibTorch thread, OpenBLAS capped at one), as a sweep gives
// each of its workers cores / jobs: ctest runs as many test processes as there are cores.
// With more, threads that busy-wait for each other lose the core to the other processes. On 2
// shared cores under `ctest -j 2`, LibTorch 2.6 (Debian 13: an OpenMP thread per core) took
// 9 ms instead of 30 us for an elementwise op over 130k floats, waiting at the OpenMP barrier,
// and Beta.TrainedPostLn... ran past ctest's 900 s (12 s on LibTorch 1.13, which runs one
// LibTorch thread); with one LibTorch thread it took 30-70 s, most of it in OpenBLAS 0.3.29's
// threads spinning for each other around small GEMMs, and 17 s with OpenBLAS at one thread.
//
// The `fathom` programs a test starts (train, sweep workers, analyze, translate) get the same
// through their environment: OpenBLAS reads OPENBLAS_NUM_THREADS when it loads, and a program
// whose config says `train.threads: 0` (all cores) otherwise starts a BLAS thread per core
// beside the other test process's. Side by side on this 2-core machine (`ctest -j2` of three
// CLI suites, 2026-12-02): 93.7 s without, 72.3 s with; 91.3 and 79.1 s for three others.
// ctest gives the Python and GUI tests the same (FATHOM_TEST_THREADS_ENV, CMakeLists.txt).
// A value already set is kept.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "core/train/threads.h"

int main(int argc, char** argv) {
  setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
  fathom::configure_threads(1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
