#include "core/train/reduce_backend.h"

#include "base/util/error.h"

namespace fathom {

bool nccl_built() {
#ifdef FATHOM_NCCL
  return true;
#else
  return false;
#endif
}

bool gloo_built() {
#ifdef FATHOM_GLOO
  return true;
#else
  return false;
#endif
}

namespace {

ReduceBackend gloo_where_built(const torch::Device& device) {
  if (!gloo_built())
    throw InputError("fathom", 0, "train.reduce_backend",
                     "this build's LibTorch has no Gloo (a PyTorch wheel ships without its "
                     "headers), so ranks on " +
                         device.str() + " cannot reduce; use nccl with GPU ranks");
  return ReduceBackend::kGloo;
}

}  // namespace

ReduceBackend resolve_reduce_backend(const TrainConfig& train, const torch::Device& device) {
  const std::string& asked = train.reduce_backend;
  if (asked == "gloo") return gloo_where_built(device);
  if (asked == "nccl") {
    if (!nccl_built())
      throw InputError("fathom", 0, "train.reduce_backend",
                       "nccl, but this build's LibTorch has no NCCL (a CPU build, or a CUDA one "
                       "without it); use gloo or auto");
    if (!device.is_cuda())
      throw InputError("fathom", 0, "train.reduce_backend",
                       "nccl reduces GPU tensors, but the run's device is " + device.str() +
                           "; use gloo or auto");
    return ReduceBackend::kNccl;
  }
  return device.is_cuda() && nccl_built() ? ReduceBackend::kNccl : gloo_where_built(device);
}

bool needs_rank_group(const TrainConfig& train) {
  return train.processes > 1 || train.reduce_backend != "auto";
}

}  // namespace fathom
