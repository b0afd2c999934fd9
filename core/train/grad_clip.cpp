#include "core/train/grad_clip.h"

#include <torch/version.h>

#include <cmath>

namespace fathom {

torch::Tensor clip_grad_norm_on_device(const std::vector<torch::Tensor>& parameters,
                                       double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return torch::zeros({});
  // One foreach op for all the norms (on CUDA a few launches instead of one per tensor).
  const std::vector<torch::Tensor> norms = at::_foreach_norm(grads, 2);
  torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  // With clipping off the coefficient would be min(inf / norm, 1) = 1: multiplying by it
  // changes nothing, so it is skipped.
  if (std::isinf(max_norm)) return total;
  torch::Tensor coefficient = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  at::_foreach_mul_(grads, coefficient);  // the tensor overload came with 2.1
#else
  for (auto& g : grads) g.mul_(coefficient);
#endif
  return total;
}

}  // namespace fathom
