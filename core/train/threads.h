#pragma once
// CPU threading of one process, declared without LibTorch's headers so that main() functions
// (cli/main.cpp, tests/support/core_test_main.cpp) compile in seconds (defined in device.cpp).

#include <string>

namespace fathom {

// CPU threads of one process. With OpenBLAS loaded LibTorch gets one intra-op thread (OpenBLAS's
// own threads do the matrix products that dominate a step; busy-waiting OpenMP threads beside
// them made a step 2.3x slower) and `threads` > 0 is OpenBLAS's thread count. "All cores"
// (0) is usable_cores(): the affinity mask's CPUs within the cgroup's CPU quota
// (base/util/usable_cores.h); OpenBLAS keeps the count its variables (OPENBLAS_NUM_THREADS,
// GOTO_NUM_THREADS, OMP_NUM_THREADS) gave it, where they named one. Without OpenBLAS,
// `threads` is LibTorch's intra-op thread count (0: all cores).
// `bf16_matmuls` (bf16 autocast on the CPU): the matrix products go to oneDNN, which runs on
// LibTorch's intra-op threads, not OpenBLAS's -- one LibTorch thread would leave them on one
// core (a tiny bf16 step took 103 ms at 2 threads, 106 ms at 1; docs/performance.md) -- so
// LibTorch gets `threads` (0: all cores) there too.
void configure_threads(int threads, bool bf16_matmuls = false);

// The threads each process of a run of `processes` gets from `train.threads`: the setting
// where it names a number, else (0: all cores) this machine's cores shared among the run's
// processes, at least one each -- each taking every core would leave 2N BLAS threads on N
// cores, spinning for each other (docs/distributed.md). 0 (all cores) for a one-process run,
// and where OPENBLAS_NUM_THREADS (or GOTO_NUM_THREADS, OMP_NUM_THREADS) names each one's.
int threads_per_process(int threads, int processes);

// The threads this process computes on, for a run's tag `threads`: "OpenBLAS 1, LibTorch 1",
// or "LibTorch 8" without OpenBLAS.
std::string threads_in_use();

}  // namespace fathom
