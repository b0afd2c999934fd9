// The training-time gradient noise scale (base/metrics/noise_scale_window.h).
#include "base/metrics/noise_scale_window.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fathom {

void solve_two_batch(const TwoBatchReading& r, double& trace, double& grad_sq) {
  const double gap = r.small_inv_tokens - 1.0 / r.big_tokens;
  if (!(r.big_tokens > 0) || !(gap > 0))
    throw std::invalid_argument("noise scale: the small batches must be smaller than the update");
  trace = (r.small_sq - r.big_sq) / gap;
  grad_sq = r.big_sq - trace / r.big_tokens;
}

void NoiseScaleWindow::add(double update_trace, double update_grad_sq) {
  ++updates;
  trace += update_trace;
  trace_sq += update_trace * update_trace;
  grad_sq += update_grad_sq;
  grad_sq_sq += update_grad_sq * update_grad_sq;
}

void NoiseScaleWindow::add(const NoiseScaleWindow& other) {
  updates += other.updates;
  trace += other.trace;
  trace_sq += other.trace_sq;
  grad_sq += other.grad_sq;
  grad_sq_sq += other.grad_sq_sq;
}

namespace {
// The standard error of the mean of n values from their sum and sum of squares.
double standard_error(double sum, double sum_sq, int64_t n) {
  if (n < 2) return std::numeric_limits<double>::infinity();
  const double k = static_cast<double>(n), mean = sum / k;
  const double variance = std::max(sum_sq - k * mean * mean, 0.0) / (k - 1);
  return std::sqrt(variance / k);
}

// The sum of squares of n values from their mean and the standard error of that mean:
// se^2 = s^2 / n and s^2 = (sum x^2 - n mean^2) / (n - 1).
double sum_of_squares(int64_t updates, double mean, double se) {
  const double n = static_cast<double>(updates);
  const double spread = updates >= 2 && std::isfinite(se) ? se * se * n * (n - 1) : 0.0;
  return spread + n * mean * mean;
}
}  // namespace

NoiseScaleWindow window_of_means(int64_t updates, double trace, double trace_se, double grad_sq,
                                 double grad_sq_se) {
  const double n = static_cast<double>(updates);
  return NoiseScaleWindow{updates, n * trace, sum_of_squares(updates, trace, trace_se), n * grad_sq,
                          sum_of_squares(updates, grad_sq, grad_sq_se)};
}

NoiseScaleEstimate estimate_noise_scale(const NoiseScaleWindow& w) {
  if (w.updates < 1) throw std::invalid_argument("noise scale: a window without updates");
  const double k = static_cast<double>(w.updates);
  NoiseScaleEstimate e;
  e.batches = static_cast<int>(w.updates);
  e.trace = w.trace / k;
  e.grad_sq = w.grad_sq / k;
  e.trace_se = standard_error(w.trace, w.trace_sq, w.updates);
  e.grad_sq_se = standard_error(w.grad_sq, w.grad_sq_sq, w.updates);
  set_noise_scale_interval(e);
  return e;
}

}  // namespace fathom
