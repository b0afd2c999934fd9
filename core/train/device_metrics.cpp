#include "core/train/device_metrics.h"

#include "core/train/divergence.h"

namespace fathom {

DeviceMetrics::DeviceMetrics(torch::Device device, double divergence_factor, double first_loss)
    : device_(device), factor_(divergence_factor) {
  update_smoothed_ = scalar(0);
  update_nll_ = scalar(0);
  window_smoothed_ = scalar(0);
  window_nll_ = scalar(0);
  window_grad_norm_ = scalar(0);
  first_loss_ = scalar(first_loss);
  diverged_update_ = scalar(0);  // 0: none (updates count from 1)
  diverged_loss_ = scalar(NAN);
  diverged_grad_norm_ = scalar(NAN);
}

torch::Tensor DeviceMetrics::scalar(double value) const {
  return torch::full({}, value, torch::dtype(torch::kFloat64).device(device_));
}

void DeviceMetrics::add_batch(const LossSums& sums) {
  torch::NoGradGuard no_grad;
  update_smoothed_ += sums.smoothed.detach().to(torch::kFloat64);
  update_nll_ += sums.nll.detach().to(torch::kFloat64);
}

void DeviceMetrics::end_update(int64_t update, int64_t tokens, const torch::Tensor& grad_norm) {
  torch::NoGradGuard no_grad;
  const torch::Tensor loss = update_smoothed_ / static_cast<double>(tokens);
  window_smoothed_ += update_smoothed_;
  window_nll_ += update_nll_;

  // DivergenceMonitor::check as flags: non-finite loss or gradient norm, then the first
  // finite update sets the reference, then loss > factor x reference.
  const torch::Tensor finite_loss = loss.isfinite();
  torch::Tensor bad = finite_loss.logical_not();
  torch::Tensor norm = scalar(0);
  if (grad_norm.defined()) {
    norm = grad_norm.to(torch::kFloat64);
    window_grad_norm_ += norm;
    bad = bad.logical_or(norm.isfinite().logical_not());
  }
  const torch::Tensor sets_reference = first_loss_.isnan().logical_and(bad.logical_not());
  first_loss_ = torch::where(sets_reference, loss, first_loss_);
  if (factor_ > 0) bad = bad.logical_or(loss > factor_ * first_loss_);

  const torch::Tensor first_time = bad.logical_and(diverged_update_ == 0);
  diverged_update_.masked_fill_(first_time, static_cast<double>(update));
  diverged_loss_ = torch::where(first_time, loss, diverged_loss_);
  diverged_grad_norm_ = torch::where(first_time, norm, diverged_grad_norm_);

  update_smoothed_ = scalar(0);
  update_nll_ = scalar(0);
}

DeviceMetrics::Reading DeviceMetrics::read(bool reset_window) {
  const torch::Tensor host =
      torch::stack({window_smoothed_, window_nll_, window_grad_norm_, first_loss_, diverged_update_,
                    diverged_loss_, diverged_grad_norm_})
          .cpu();
  const double* v = host.data_ptr<double>();
  Reading r;
  r.smoothed = v[0];
  r.nll = v[1];
  r.grad_norm = v[2];
  r.first_loss = v[3];
  if (v[4] > 0) {
    r.diverged_update = static_cast<int64_t>(v[4]);
    r.diverged_loss = v[5];
    r.diverged_grad_norm = v[6];
    // The reference was already set when the rule compared against it (or the value was
    // non-finite), so the host monitor gives the same verdict and wording.
    r.reason = DivergenceMonitor(factor_, r.first_loss)
                   .check(r.diverged_loss, r.diverged_grad_norm)
                   .value_or("diverged");
  }
  if (reset_window) {
    window_smoothed_ = scalar(0);
    window_nll_ = scalar(0);
    window_grad_norm_ = scalar(0);
  }
  return r;
}

void DeviceMetrics::restore_window(double smoothed, double nll, double grad_norm) {
  window_smoothed_ = scalar(smoothed);
  window_nll_ = scalar(nll);
  window_grad_norm_ = scalar(grad_norm);
}

}  // namespace fathom
