#include "core/train/loss_scaler.h"

namespace fathom {

bool LossScaler::unscale_and_find_non_finite(const std::vector<torch::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  torch::Tensor found;  // accumulated on the device; read once below
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    torch::Tensor grad = p.mutable_grad();
    grad.mul_(1.0 / scale_);
    torch::Tensor bad = grad.isfinite().logical_not().any();
    found = found.defined() ? found.logical_or(bad) : bad;
  }
  return found.defined() && found.item<bool>();
}

void LossScaler::update(bool found_non_finite) {
  if (found_non_finite) {
    scale_ *= 0.5;
    clean_updates_ = 0;
    return;
  }
  if (++clean_updates_ == kGrowthInterval) {
    scale_ *= 2.0;
    clean_updates_ = 0;
  }
}

}  // namespace fathom
