#pragma once
// CPU threading of one process, declared without LibTorch's headers so that main() functions
// (cli/main.cpp, tests/support/core_test_main.cpp) compile in seconds (defined in device.cpp).

namespace fathom {

// CPU threads of one process. With OpenBLAS loaded LibTorch gets one intra-op thread (OpenBLAS's
// own threads do the matrix products that dominate a step; busy-waiting OpenMP threads beside
// them made a step 2.3x slower) and `threads` > 0 caps OpenBLAS's threads (0: all cores).
// Without OpenBLAS, `threads` > 0 is LibTorch's intra-op thread count (0: all cores).
// `bf16_matmuls` (bf16 autocast on the CPU): the matrix products go to oneDNN, which runs on
// LibTorch's intra-op threads, not OpenBLAS's -- one LibTorch thread would leave them on one
// core (a tiny bf16 step took 103 ms at 2 threads, 106 ms at 1; docs/performance.md) -- so
// LibTorch gets `threads` (0: all cores) there too.
void configure_threads(int threads, bool bf16_matmuls = false);

}  // namespace fathom
