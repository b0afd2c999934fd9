// Optimizer::diagonal_step_factors (core/train/optimizer.h): Adam's preconditioner, for the
// preconditioned sharpness (core/train/sharpness.h).
#include <cmath>
#include <unordered_map>

#include "core/train/optimizer.h"

namespace fathom {

std::vector<torch::Tensor> Optimizer::diagonal_step_factors(
    const std::vector<torch::Tensor>& params) const {
  if (step_ == 0) return {};
  for (const auto& s : slots_)
    if (s.muon_blocks > 0) return {};
  torch::NoGradGuard no_grad;
  const double t = static_cast<double>(step_);
  const double bias1 = 1.0 - std::pow(beta1_, t);
  const double bias2 = 1.0 - std::pow(beta2_, t);
  const Rectification r = rectification(t, bias2);
  std::unordered_map<const void*, const Slot*> slot_of;
  for (const auto& s : slots_) slot_of[s.param.unsafeGetTensorImpl()] = &s;
  std::vector<torch::Tensor> factors;
  for (const auto& p : params) {
    const auto found = slot_of.find(p.unsafeGetTensorImpl());
    if (found == slot_of.end()) {
      factors.push_back(torch::zeros_like(p));
      continue;
    }
    const Slot& s = *found->second;
    const Group& g = groups_[s.group];
    const double scale = g.lr_scale * r.factor / bias1;
    if (sgd_) {
      factors.push_back(torch::full_like(p, g.lr_scale / (1.0 - beta1_)));
      continue;
    }
    factors.push_back(r.adaptive
                          ? s.exp_avg_sq.div(bias2).sqrt_().add_(g.eps).reciprocal_().mul_(scale)
                          : torch::full_like(p, g.lr_scale / bias1));
  }
  return factors;
}

}  // namespace fathom
