// main() of the LibTorch test executables (tests/core/): gtest's, after the CPU threading
// policy every Fathom program uses (configure_threads: one LibTorch thread beside OpenBLAS's).
// ctest runs as many test processes as there are cores. LibTorch 2.6 (Debian 13) runs its
// intra-op work on OpenMP with one thread per core, and each parallel op then waits at an
// OpenMP barrier for a thread the other processes have taken the core from: on 2 cores under
// `ctest -j 2` an elementwise op over 130k floats took 9 ms instead of 30 us, and
// Beta.TrainedPostLn... ran past ctest's 900 s (12 s on LibTorch 1.13, which runs one thread).
#include <gtest/gtest.h>

#include "core/train/device.h"

int main(int argc, char** argv) {
  fathom::configure_threads(0);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
