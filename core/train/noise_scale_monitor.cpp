// The training-time noise scale's device side (core/train/noise_scale_monitor.h).
#include "core/train/noise_scale_monitor.h"

#include <utility>

namespace fathom {

NoiseScaleMonitor::NoiseScaleMonitor(std::vector<torch::Tensor> parameters, torch::Device device,
                                     int world)
    : parameters_(std::move(parameters)),
      device_(device),
      world_(world),
      sums_(torch::zeros({4}, torch::TensorOptions().dtype(torch::kFloat64).device(device))) {}

void NoiseScaleMonitor::begin_update(int64_t update_tokens, double loss_scale) {
  update_tokens_ = static_cast<double>(update_tokens);
  loss_scale_ = loss_scale;
  share_tokens_ = 0;
  small_sq_ = torch::Tensor();
  small_inv_tokens_ = 0;
}

torch::Tensor NoiseScaleMonitor::squared_norm() const {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters_)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return torch::zeros({}, torch::dtype(torch::kFloat64).device(device_));
  const torch::Tensor norms = torch::stack(at::_foreach_norm(grads, 2)).to(torch::kFloat64);
  return norms.square().sum();
}

void NoiseScaleMonitor::after_batch(size_t position, size_t count, int64_t tokens) {
  share_tokens_ += tokens;
  const bool small_ends = world_ > 1 ? position + 1 == count : position == 0 && count >= 2;
  if (!small_ends || share_tokens_ <= 0) return;
  // .grad holds sum over the batches so far of objective / update_tokens (times the loss
  // scale): their per-token mean gradient is that times update_tokens / share_tokens.
  const double to_mean = update_tokens_ / static_cast<double>(share_tokens_) / loss_scale_;
  small_sq_ = squared_norm() * (to_mean * to_mean);
  small_inv_tokens_ = 1.0 / static_cast<double>(share_tokens_);
}

torch::Tensor NoiseScaleMonitor::share_reading() const {
  if (world_ <= 1) return torch::Tensor();
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
  if (!small_sq_.defined()) return torch::zeros({3}, options);
  return torch::stack({small_sq_.reshape({}), torch::tensor(small_inv_tokens_, options),
                       torch::tensor(1.0, options)});
}

void NoiseScaleMonitor::set_ranks_reading(double sq_sum, double inverse_tokens_sum,
                                          double readers) {
  if (world_ <= 1) return;
  if (readers <= 0) {
    small_sq_ = torch::Tensor();
    return;
  }
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
  small_sq_ = torch::tensor(sq_sum / readers, options);
  small_inv_tokens_ = inverse_tokens_sum / readers;
}

void NoiseScaleMonitor::end_update(const torch::Tensor& grad_norm) {
  // The small batches must hold fewer tokens than the update (1 / B_small > 1 / B_big); a
  // relative margin keeps rounding from dividing by almost nothing.
  const double gap = small_inv_tokens_ - 1.0 / update_tokens_;
  if (!small_sq_.defined() || !grad_norm.defined() || !(gap > 1e-9 * small_inv_tokens_)) return;
  torch::NoGradGuard no_grad;
  const torch::Tensor big_sq = grad_norm.detach().to(torch::kFloat64).square().reshape({});
  // solve_two_batch's arithmetic, on the device.
  const torch::Tensor trace = (small_sq_ - big_sq) / gap;
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
