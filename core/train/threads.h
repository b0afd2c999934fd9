#pragma once
// CPU threading of one process, declared without LibTorch's headers so that main() functions
// (cli/main.cpp, tests/support/core_test_main.cpp) compile in seconds (defined in device.cpp).

namespace fathom {

// CPU threads of one process. With OpenBLAS loaded LibTorch gets one intra-op thread (OpenBLAS's
// own threads do the matrix products that dominate a step; busy-waiting OpenMP threads beside
// them made a step 2.3x slower) and `threads` > 0 caps OpenBLAS's threads (0: all cores).
// Without OpenBLAS, `threads` > 0 is LibTorch's intra-op thread count (0: all cores).
void configure_threads(int threads);

}  // namespace fathom
