// main() of the LibTorch test executables (tests/core/): gtest's, after one CPU thread per
// process (configure_threads(1): one LibTorch thread, OpenBLAS capped at one), as a sweep gives
// each of its workers cores / jobs: ctest runs as many test processes as there are cores.
// With more, threads that busy-wait for each other lose the core to the other processes. On 2
// shared cores under `ctest -j 2`, LibTorch 2.6 (Debian 13: an OpenMP thread per core) took
// 9 ms instead of 30 us for an elementwise op over 130k floats, waiting at the OpenMP barrier,
// and Beta.TrainedPostLn... ran past ctest's 900 s (12 s on LibTorch 1.13, which runs one
// LibTorch thread); with one LibTorch thread it took 30-70 s, most of it in OpenBLAS 0.3.29's
// threads spinning for each other around small GEMMs, and 17 s with OpenBLAS at one thread.
#include <gtest/gtest.h>

#include "core/train/threads.h"

int main(int argc, char** argv) {
  fathom::configure_threads(1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
