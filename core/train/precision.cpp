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
  if (precision == "tf32") {
    if (!device.is_cuda())
      config_error(config, "train.precision",
                   "tf32 is a CUDA tensor-core format (Ampere and later); on the CPU every "
                   "product is float32 already: use fp32");
    plan.tf32_products = true;
    return plan;
  }
  config_error(config, "train.precision", "unknown precision '" + precision + "'");
}

Tf32Scope::Tf32Scope(const PrecisionPlan& plan)
    : cublas_before_(at::globalContext().allowTF32CuBLAS()),
      cudnn_before_(at::globalContext().allowTF32CuDNN()) {
  at::globalContext().setAllowTF32CuBLAS(plan.tf32_products);
  at::globalContext().setAllowTF32CuDNN(plan.tf32_products);
}

Tf32Scope::~Tf32Scope() {
  at::globalContext().setAllowTF32CuBLAS(cublas_before_);
  at::globalContext().setAllowTF32CuDNN(cudnn_before_);
}

}  // namespace fathom
