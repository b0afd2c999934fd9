#include "core/train/grad_clip.h"

#include <cmath>

namespace fathom {

torch::Tensor clip_grad_norm_on_device(const std::vector<torch::Tensor>& parameters,
                                       double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads, norms;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return torch::zeros({});
  for (const auto& g : grads) norms.push_back(g.norm(2));
  torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  // With clipping off the coefficient would be min(inf / norm, 1) = 1: multiplying by it
  // changes nothing, so it is skipped.
  if (std::isinf(max_norm)) return total;
  torch::Tensor coefficient = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  for (auto& g : grads) g.mul_(coefficient);
  return total;
}

}  // namespace fathom
