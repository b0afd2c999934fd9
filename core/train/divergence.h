#pragma once
// Decides whether training has diverged (issue: a non-finite loss or gradient, or a loss
// above a configured multiple of the first update's loss).
#include <cmath>
#include <optional>
#include <string>

namespace fathom {

class DivergenceMonitor {
 public:
  // factor <= 0 disables the loss-ratio rule (non-finite values are always divergence).
  explicit DivergenceMonitor(double factor, double first_loss = NAN)
      : factor_(factor), first_loss_(first_loss) {}

  // The reason training diverged at this update, or nullopt.
  std::optional<std::string> check(double loss, double grad_norm) {
    if (!std::isfinite(loss)) return "non-finite loss";
    if (!std::isfinite(grad_norm)) return "non-finite gradient norm";
    if (std::isnan(first_loss_)) first_loss_ = loss;
    if (factor_ > 0 && loss > factor_ * first_loss_)
      return "loss " + std::to_string(loss) + " exceeds " + std::to_string(factor_) +
             " x first loss " + std::to_string(first_loss_);
    return std::nullopt;
  }
  double first_loss() const { return first_loss_; }

 private:
  double factor_;
  double first_loss_;
};

}  // namespace fathom
