#pragma once
// Device selection and CPU threading defaults.
#include <torch/torch.h>

#include <string>

#include "core/train/threads.h"  // configure_threads

namespace fathom {

// "auto" -> CUDA when LibTorch sees a GPU, else CPU; "cpu"; "cuda"; "cuda:N".
torch::Device resolve_device(const std::string& name);

}  // namespace fathom
