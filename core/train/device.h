#pragma once
// Device selection and CPU threading defaults.
#include <torch/torch.h>

#include <string>

namespace fathom {

// "auto" -> CUDA when LibTorch sees a GPU, else CPU; "cpu"; "cuda"; "cuda:N".
torch::Device resolve_device(const std::string& name);

// LibTorch may start with one intra-op thread (it does on Debian's build); use every core
// unless `threads` > 0 says otherwise.
void configure_threads(int threads);

}  // namespace fathom
