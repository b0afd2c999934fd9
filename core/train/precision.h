#pragma once
// train.precision for the run's device: which autocast the forward pass runs under and
// whether the gradients need loss scaling.
//   fp32: no autocast.
//   bf16: autocast to bfloat16 (CUDA; and CPU, where LibTorch's CPU autocast supports bf16).
//         bf16 has float32's exponent range, so gradients need no scaling.
//   fp16: autocast to float16 plus dynamic loss scaling (core/train/loss_scaler.h); CUDA only
//         (LibTorch's CPU autocast has no float16 op lists), refused on the CPU.
//   tf32: no autocast, float32 everywhere, but cuBLAS's and cuDNN's products on tensor cores in
//         TF32 (inputs rounded to a 10-bit mantissa, float32 accumulation): what PyTorch's
//         allow_tf32 flags turn on; CUDA (Ampere and later) only, refused on the CPU.
#include <torch/torch.h>

#include "base/config/config.h"
#include "core/model/autocast_scope.h"

namespace fathom {

struct PrecisionPlan {
  AutocastSetting autocast;    // enabled = false for fp32
  bool loss_scaling = false;   // fp16
  bool tf32_products = false;  // tf32
};

// Throws a config error naming train.precision when the device cannot run it.
PrecisionPlan plan_precision(const RunConfig& config, torch::Device device);

// LibTorch's process-wide TF32 switches (cuBLAS products, cuDNN) set to the plan's while it
// lives, put back as they were after: a run in a process that trains others after it (tests,
// benches) leaves them alone.
class Tf32Scope {
 public:
  explicit Tf32Scope(const PrecisionPlan& plan);
  ~Tf32Scope();
  Tf32Scope(const Tf32Scope&) = delete;
  Tf32Scope& operator=(const Tf32Scope&) = delete;

 private:
  bool cublas_before_, cudnn_before_;
};

}  // namespace fathom
