#pragma once
// Device selection and CPU threading defaults.
#include <torch/torch.h>

#include <string>

namespace fathom {

// "auto" -> CUDA when LibTorch sees a GPU, else CPU; "cpu"; "cuda"; "cuda:N".
torch::Device resolve_device(const std::string& name);

// CPU threads of one process. With OpenBLAS loaded LibTorch gets one intra-op thread (OpenBLAS's
// own threads do the matrix products that dominate a step; busy-waiting OpenMP threads beside
// them made a step 2.3x slower) and `threads` > 0 caps OpenBLAS's threads (0: all cores).
// Without OpenBLAS, `threads` > 0 is LibTorch's intra-op thread count (0: all cores).
void configure_threads(int threads);

}  // namespace fathom
