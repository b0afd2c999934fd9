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

ReduceBackend resolve_reduce_backend(const TrainConfig& train, const torch::Device& device) {
  const std::string& asked = train.reduce_backend;
  if (asked == "gloo") return ReduceBackend::kGloo;
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
  return device.is_cuda() && nccl_built() ? ReduceBackend::kNccl : ReduceBackend::kGloo;
}

bool needs_rank_group(const TrainConfig& train) {
  return train.processes > 1 || train.reduce_backend != "auto";
}

}  // namespace fathom
