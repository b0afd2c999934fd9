#pragma once
// Which of LibTorch's collective libraries sums a data-parallel run's gradients
// (train.reduce_backend, docs/distributed.md): Gloo, which reduces CPU tensors (and CUDA ones
// through host copies), or NCCL, which reduces GPU tensors on the GPUs, where this LibTorch was
// built with it. c10d provides both; this file only chooses, before a run starts.
#include <torch/torch.h>

#include "base/config/config.h"

namespace fathom {

enum class ReduceBackend { kGloo, kNccl };

// True where this build links c10d's ProcessGroupNCCL: a CUDA LibTorch built with NCCL, found
// by core/CMakeLists.txt's probe (FATHOM_NCCL). Debian 12's CPU LibTorch has none.
bool nccl_built();
// True where Gloo's headers came with this LibTorch (Debian's do; a PyTorch wheel's do not, so
// its ranks reduce with NCCL alone and CPU ranks cannot be had): FATHOM_GLOO.
bool gloo_built();

// The backend of a rank on `device`: `auto` takes NCCL for a GPU rank where it is built, Gloo
// otherwise; `nccl` where it cannot be had (a CPU rank, a build without it), or Gloo in a build
// without it, is an InputError naming train.reduce_backend, raised before anything is stored.
ReduceBackend resolve_reduce_backend(const TrainConfig& train, const torch::Device& device);

// A run trains in a rank group when it has more than one process, or when its backend is named
// (gloo, nccl): a one-rank group then runs the reduction path, which must equal the plain run.
bool needs_rank_group(const TrainConfig& train);

}  // namespace fathom
