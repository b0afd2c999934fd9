#pragma once
// Device selection and CPU threading defaults.
#include <torch/torch.h>

#include <string>

#include "core/train/threads.h"  // configure_threads

namespace fathom {

// "auto" -> CUDA when LibTorch sees a GPU, else CPU; "cpu"; "cuda"; "cuda:N".
torch::Device resolve_device(const std::string& name);

// The device of rank `rank` of a data-parallel run on `device`: the CPU for every rank; on
// CUDA one GPU per rank from the named one on (cuda -> cuda:rank). More ranks than GPUs throw
// InputError naming train.processes.
torch::Device rank_device(const torch::Device& device, int rank, int world);

}  // namespace fathom
