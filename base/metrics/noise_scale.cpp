// The gradient noise scale's two-batch estimator and its jackknife (base/metrics/noise_scale.h).
#include "base/metrics/noise_scale.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fathom {
namespace {

// z of a two-sided 97.5 % normal interval: two of them hold jointly with at least 95 %.
constexpr double kZ = 2.2414027276049473;

struct Moments {
  double tokens = 0;        // T
  double inv_tokens = 0;    // h = mean 1 / T_b
  double sq_norm = 0;       // mean |g_b|^2
  double mean_grad_sq = 0;  // |G_K|^2
};

// tr(Sigma) and |G|^2 from the two equations of the header.
void solve(const Moments& m, double& trace, double& grad_sq) {
  trace = (m.sq_norm - m.mean_grad_sq) / (m.inv_tokens - 1.0 / m.tokens);
  grad_sq = m.mean_grad_sq - trace / m.tokens;
}

// The moments with batch `b` left out: G_K without it is (T G_K - T_b g_b) / (T - T_b).
Moments without(const NoiseScaleReadings& r, const Moments& all, size_t b) {
  const double k = static_cast<double>(r.tokens.size());
  const double tb = r.tokens[b], rest = all.tokens - tb;
  Moments m;
  m.tokens = rest;
  m.inv_tokens = (k * all.inv_tokens - 1.0 / tb) / (k - 1);
  m.sq_norm = (k * all.sq_norm - r.sq_norms[b]) / (k - 1);
  m.mean_grad_sq = (all.tokens * all.tokens * all.mean_grad_sq - 2 * all.tokens * tb * r.dots[b] +
                    tb * tb * r.sq_norms[b]) /
                   (rest * rest);
  return m;
}

// The jackknife standard error of an estimate from its K leave-one-out values.
double jackknife_se(const std::vector<double>& loo) {
  const double k = static_cast<double>(loo.size());
  double mean = 0;
  for (double v : loo) mean += v / k;
  double ss = 0;
  for (double v : loo) ss += (v - mean) * (v - mean);
  return std::sqrt((k - 1) / k * ss);
}

}  // namespace

void NoiseScaleReadings::add(const NoiseScaleReadings& other) {
  if (tokens.empty()) {
    *this = other;
    return;
  }
  if (other.tokens.size() != tokens.size())
    throw std::invalid_argument("noise scale: readings over different batches added");
  for (size_t b = 0; b < tokens.size(); ++b) {
    sq_norms[b] += other.sq_norms[b];
    dots[b] += other.dots[b];
  }
}

NoiseScaleEstimate estimate_noise_scale(const NoiseScaleReadings& r) {
  const size_t k = r.tokens.size();
  if (k < 2) throw std::invalid_argument("noise scale: needs at least 2 batches");
  if (r.sq_norms.size() != k || r.dots.size() != k)
    throw std::invalid_argument("noise scale: readings of different lengths");
  Moments all;
  for (size_t b = 0; b < k; ++b) {
    if (!(r.tokens[b] > 0)) throw std::invalid_argument("noise scale: a batch without tokens");
    all.tokens += r.tokens[b];
  }
  for (size_t b = 0; b < k; ++b) {
    all.inv_tokens += 1.0 / r.tokens[b] / static_cast<double>(k);
    all.sq_norm += r.sq_norms[b] / static_cast<double>(k);
    all.mean_grad_sq += r.tokens[b] / all.tokens * r.dots[b];  // |G_K|^2 = sum w_b <G_K, g_b>
  }
  NoiseScaleEstimate e;
  e.batches = static_cast<int>(k);
  e.tokens = all.tokens;
  e.mean_grad_sq = all.mean_grad_sq;
  solve(all, e.trace, e.grad_sq);
  std::vector<double> traces(k), grads(k);
  for (size_t b = 0; b < k; ++b) solve(without(r, all, b), traces[b], grads[b]);
  e.trace_se = jackknife_se(traces);
  e.grad_sq_se = jackknife_se(grads);
  set_noise_scale_interval(e);
  return e;
}

void set_noise_scale_interval(NoiseScaleEstimate& e) {
  const double inf = std::numeric_limits<double>::infinity();
  e.b_simple = e.grad_sq > 0 ? std::max(e.trace, 0.0) / e.grad_sq : inf;
  if (std::isnan(e.trace_se)) e.trace_se = inf;
  if (std::isnan(e.grad_sq_se)) e.grad_sq_se = inf;
  const double trace_low = std::max(e.trace - kZ * e.trace_se, 0.0);
  const double trace_high = std::max(e.trace + kZ * e.trace_se, 0.0);
  const double grad_high = e.grad_sq + kZ * e.grad_sq_se;
  const double grad_low = e.grad_sq - kZ * e.grad_sq_se;
  e.resolved = grad_low > 0;
  e.b_low = grad_high > 0 ? trace_low / grad_high : inf;
  e.b_high = e.resolved ? trace_high / grad_low : inf;
}

}  // namespace fathom
