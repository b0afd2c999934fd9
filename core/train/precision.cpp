#include "core/train/precision.h"

#include "base/config/config_io.h"

namespace fathom {

PrecisionPlan plan_precision(const RunConfig& config, torch::Device device) {
  const std::string& precision = config.train.precision;
  PrecisionPlan plan;
  plan.autocast.device = device.type();
  if (precision == "fp32") return plan;
  if (precision == "bf16") {
    plan.autocast.enabled = true;
    plan.autocast.dtype = at::kBFloat16;
    return plan;
  }
  if (precision == "fp16") {
    if (!device.is_cuda())
      config_error(config, "train.precision",
                   "fp16 needs a CUDA device (LibTorch's CPU autocast has no float16); use bf16 "
                   "or fp32 on the CPU");
    plan.autocast.enabled = true;
    plan.autocast.dtype = at::kHalf;
    plan.loss_scaling = true;
    return plan;
  }
  config_error(config, "train.precision", "unknown precision '" + precision + "'");
}

}  // namespace fathom
