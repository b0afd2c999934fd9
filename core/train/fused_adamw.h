#pragma once
// LibTorch's fused AdamW kernel (at::_fused_adamw_, LibTorch >= 2.4 on the CPU and CUDA): one
// pass over each parameter's memory for the whole update -- decoupled decay, both moments, the
// bias-corrected step -- where the foreach path (core/train/optimizer.cpp) makes eight passes
// over every tensor (eight launches per stage on CUDA; the update was the whole gap to PyTorch
// on an H200, docs/gpu.md). Same formula, float rounding apart (tests/core/test_fused_adamw.cpp).
#include <torch/torch.h>

#include <vector>

namespace fathom {

// Whether this LibTorch has the kernel (compiled against 2.4 or later).
bool fused_adamw_available();

// Whether one fused call can take these tensors: same device and floating dtype throughout,
// dense and contiguous (what the kernels require; anything else goes the foreach way).
bool fused_adamw_accepts(const std::vector<torch::Tensor>& params,
                         const std::vector<torch::Tensor>& grads);

// One AdamW update at step `step` (1 for the first): for every i,
//   p <- p (1 - lr wd); m <- b1 m + (1 - b1) g; v <- b2 v + (1 - b2) g^2;
//   p <- p - lr / (1 - b1^step) * m / (sqrt(v) / sqrt(1 - b2^step) + eps).
// Only where fused_adamw_available() and fused_adamw_accepts(); throws otherwise.
void fused_adamw_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads,
                      std::vector<torch::Tensor>& exp_avgs, std::vector<torch::Tensor>& exp_avg_sqs,
                      int64_t step, double lr, double beta1, double beta2, double weight_decay,
                      double eps);

}  // namespace fathom
