#pragma once
// train.precision for the run's device: which autocast the forward pass runs under and
// whether the gradients need loss scaling.
//   fp32: no autocast.
//   bf16: autocast to bfloat16 (CUDA; and CPU, where LibTorch's CPU autocast supports bf16).
//         bf16 has float32's exponent range, so gradients need no scaling.
//   fp16: autocast to float16 plus dynamic loss scaling (core/train/loss_scaler.h); CUDA only
//         (LibTorch's CPU autocast has no float16 op lists), refused on the CPU.
#include <torch/torch.h>

#include "base/config/config.h"
#include "core/model/autocast_scope.h"

namespace fathom {

struct PrecisionPlan {
  AutocastSetting autocast;   // enabled = false for fp32
  bool loss_scaling = false;  // fp16
};

// Throws a config error naming train.precision when the device cannot run it.
PrecisionPlan plan_precision(const RunConfig& config, torch::Device device);

}  // namespace fathom
