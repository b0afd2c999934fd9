// The training-time noise scale's device side (core/train/noise_scale_monitor.h).
#include "core/train/noise_scale_monitor.h"

#include <algorithm>
#include <utility>

namespace fathom {

NoiseScaleMonitor::NoiseScaleMonitor(std::vector<torch::Tensor> parameters, torch::Device device,
                                     int world)
    : parameters_(std::move(parameters)),
      device_(device),
      world_(world),
      before_(parameters_.size()),
      before_held_(parameters_.size(), false),
      sums_(torch::zeros({4}, torch::TensorOptions().dtype(torch::kFloat64).device(device))) {}

void NoiseScaleMonitor::begin_update(int64_t update_tokens, double loss_scale) {
  update_tokens_ = static_cast<double>(update_tokens);
  loss_scale_ = loss_scale;
  std::fill(before_held_.begin(), before_held_.end(), false);  // .grad starts the update at zero
  small_sq_ = torch::Tensor();
  small_inv_tokens_ = 0;
  small_readings_ = 0;
}

torch::Tensor NoiseScaleMonitor::batch_squared_norm(bool keep) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> befores, afters, shares;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const torch::Tensor& grad = parameters_[i].grad();
    if (!grad.defined()) continue;
    if (before_held_[i]) {
      befores.push_back(before_[i]);
      afters.push_back(grad);
    }
    shares.push_back(before_held_[i] ? before_[i] : grad);  // none before: .grad is the share
  }
  if (!befores.empty()) at::_foreach_sub_(befores, afters);  // minus this batch's share
  const torch::Tensor sq =
      shares.empty()
          ? torch::zeros({}, torch::dtype(torch::kFloat64).device(device_))
          : torch::stack(at::_foreach_norm(shares, 2)).to(torch::kFloat64).square().sum();
  if (!keep) return sq;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const torch::Tensor& grad = parameters_[i].grad();
    if (!grad.defined()) continue;
    torch::Tensor& before = before_[i];
    if (before.defined() && before.sizes() == grad.sizes() && before.dtype() == grad.dtype())
      before.copy_(grad);
    else
      before = grad.detach().clone();  // the first update (or a changed .grad) allocates
    before_held_[i] = true;
  }
  return sq;
}

void NoiseScaleMonitor::after_batch(size_t position, size_t count, int64_t tokens) {
  // One process's only batch is the update itself: no small gradient.
  if (tokens <= 0 || (world_ <= 1 && count < 2)) return;
  // .grad holds the sum over the batches so far of objective / update_tokens (times the loss
  // scale): this batch's per-token mean gradient is its share times update_tokens / tokens.
  const double to_mean = update_tokens_ / static_cast<double>(tokens) / loss_scale_;
  const torch::Tensor reading = batch_squared_norm(position + 1 < count) * (to_mean * to_mean);
  small_sq_ = small_sq_.defined() ? small_sq_ + reading : reading;
  small_inv_tokens_ += 1.0 / static_cast<double>(tokens);
  small_readings_ += 1;
}

torch::Tensor NoiseScaleMonitor::share_reading() const {
  if (world_ <= 1) return torch::Tensor();
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
  if (!small_sq_.defined()) return torch::zeros({3}, options);
  return torch::stack({small_sq_.reshape({}), torch::tensor(small_inv_tokens_, options),
                       torch::tensor(small_readings_, options)});
}

void NoiseScaleMonitor::set_ranks_reading(double sq_sum, double inverse_tokens_sum,
                                          double readings) {
  if (world_ <= 1) return;
  small_readings_ = readings;
  if (readings <= 0) {
    small_sq_ = torch::Tensor();
    return;
  }
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
  small_sq_ = torch::tensor(sq_sum, options);
  small_inv_tokens_ = inverse_tokens_sum;
}

void NoiseScaleMonitor::end_update(const torch::Tensor& grad_norm) {
  if (!small_sq_.defined() || !(small_readings_ > 0) || !grad_norm.defined()) return;
  // The small batches must hold fewer tokens than the update (mean 1 / B_k > 1 / B_big); a
  // relative margin keeps rounding from dividing by almost nothing.
  const double inverse = small_inv_tokens_ / small_readings_;
  const double gap = inverse - 1.0 / update_tokens_;
  if (!(gap > 1e-9 * inverse)) return;
  torch::NoGradGuard no_grad;
  const torch::Tensor big_sq = grad_norm.detach().to(torch::kFloat64).square().reshape({});
  // solve_two_batch's arithmetic over the readings' means (base/metrics/noise_scale.h's unequal
  // sizes), on the device.
  const torch::Tensor trace = (small_sq_ / small_readings_ - big_sq) / gap;
  const torch::Tensor grad_sq = big_sq - trace / update_tokens_;
  sums_ += torch::stack({trace, trace.square(), grad_sq, grad_sq.square()});
  ++updates_;
  small_sq_ = torch::Tensor();
}

NoiseScaleWindow NoiseScaleMonitor::window() const {
  const torch::Tensor host = sums_.cpu();
  const double* s = host.data_ptr<double>();
  return NoiseScaleWindow{updates_, s[0], s[1], s[2], s[3]};
}

void NoiseScaleMonitor::reset() {
  sums_.zero_();
  updates_ = 0;
}

void NoiseScaleMonitor::restore(const NoiseScaleWindow& window) {
  updates_ = window.updates;
  sums_ = torch::tensor({window.trace, window.trace_sq, window.grad_sq, window.grad_sq_sq},
                        torch::kFloat64)
              .to(device_);
}

}  // namespace fathom
