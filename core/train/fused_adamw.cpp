#include "core/train/fused_adamw.h"

#include <torch/version.h>

#include <stdexcept>

namespace fathom {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define FATHOM_HAS_FUSED_ADAMW 1
#endif

bool fused_adamw_available() {
#ifdef FATHOM_HAS_FUSED_ADAMW
  return true;
#else
  return false;
#endif
}

bool fused_adamw_accepts(const std::vector<torch::Tensor>& params,
                         const std::vector<torch::Tensor>& grads) {
  if (params.empty() || params.size() != grads.size()) return false;
  const c10::Device device = params[0].device();
  const c10::ScalarType dtype = params[0].scalar_type();
  // The CPU kernel covers float, double, half and bfloat16; CUDA's the same four.
  if (!at::isFloatingType(dtype)) return false;
  if (device.type() != c10::DeviceType::CPU && device.type() != c10::DeviceType::CUDA) return false;
  for (size_t i = 0; i < params.size(); ++i) {
    for (const torch::Tensor* t : {&params[i], &grads[i]})
      if (t->device() != device || t->scalar_type() != dtype || t->is_sparse() ||
          !t->is_contiguous())
        return false;
  }
  return true;
}

void fused_adamw_step(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& grads,
                      std::vector<torch::Tensor>& exp_avgs, std::vector<torch::Tensor>& exp_avg_sqs,
                      int64_t step, double lr, double beta1, double beta2, double weight_decay,
                      double eps) {
#ifdef FATHOM_HAS_FUSED_ADAMW
  if (params.empty()) return;
  // The kernel reads the step count from a float tensor per parameter, on the parameters'
  // device (PyTorch's optimizer increments them there, so CUDA never syncs with the host): one
  // tensor, listed once per parameter, filled on the device.
  const torch::Tensor step_tensor =
      torch::full({}, static_cast<double>(step), params[0].options().dtype(torch::kFloat));
  const std::vector<torch::Tensor> steps(params.size(), step_tensor);
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, lr, beta1,
                    beta2, weight_decay, eps, /*amsgrad=*/false, /*maximize=*/false);
#else
  (void)params, (void)grads, (void)exp_avgs, (void)exp_avg_sqs, (void)step, (void)lr, (void)beta1,
      (void)beta2, (void)weight_decay, (void)eps;
  throw std::logic_error("fused_adamw_step: this LibTorch (" TORCH_VERSION
                         ") has no fused AdamW kernel (2.4 or later)");
#endif
}

}  // namespace fathom
