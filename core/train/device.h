#pragma once
// Device selection and CPU threading defaults.
#include <torch/torch.h>

#include <string>

namespace fathom {

// "auto" -> CUDA when LibTorch sees a GPU, else CPU; "cpu"; "cuda"; "cuda:N".
torch::Device resolve_device(const std::string& name);

// LibTorch's intra-op (OpenMP) threads. `threads` > 0 is taken as given. The default (0):
// with OpenBLAS, one -- OpenBLAS's own threads already use every core for the matrix products
// that dominate a step, and busy-waiting OpenMP threads beside them made a training step 2.3x
// slower on 2 cores (bench/bench_train.cpp); otherwise every core.
void configure_threads(int threads);

}  // namespace fathom
