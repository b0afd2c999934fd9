#include "base/metrics/seed_pooled_test.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#include "base/metrics/block_length.h"

namespace fathom {
namespace {

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// Points of the quadrature over U ~ chi^2_{k-1}: p to about 1e-3 at 0.05 (checked against
// Student's t where C is 0).
constexpr int kQuadrature = 512;

// The midpoints of kQuadrature equally likely slices of chi^2 on `df` degrees of freedom,
// computed once a df: Boost's quantile is the test's dearest part.
const std::vector<double>& chi_squared_nodes(size_t df) {
  static std::mutex lock;
  static std::map<size_t, std::vector<double>> nodes;
  const std::lock_guard<std::mutex> hold(lock);
  std::vector<double>& u = nodes[df];
  if (u.empty()) {
    const boost::math::chi_squared chi(static_cast<double>(df));
    for (int i = 0; i < kQuadrature; ++i)
      u.push_back(boost::math::quantile(chi, (i + 0.5) / kQuadrature));
  }
  return u;
}

}  // namespace

double TestSetError::shared(size_t seeds) const {
  if (seeds < 2) return of_mean;
  const double k = static_cast<double>(seeds);
  return std::max(0.0, (k * of_mean - of_each) / (k - 1));
}

TestSetError test_set_error_of_draws(const std::vector<std::vector<double>>& draws) {
  if (draws.size() < 2) throw std::invalid_argument("test-set error: fewer than two draws");
  const size_t k = draws.front().size();
  if (k == 0) throw std::invalid_argument("test-set error: no seed in a draw");
  std::vector<double> sum(k, 0.0), square(k, 0.0);
  double mean_sum = 0, mean_square = 0;
  for (const auto& draw : draws) {
    if (draw.size() != k) throw std::invalid_argument("test-set error: draws of unequal size");
    const double m = mean_of(draw);
    mean_sum += m;
    mean_square += m * m;
    for (size_t j = 0; j < k; ++j) {
      sum[j] += draw[j];
      square[j] += draw[j] * draw[j];
    }
  }
  const double b = static_cast<double>(draws.size());
  const auto variance = [b](double s, double s2) {
    return std::max(0.0, (s2 - s * s / b) / (b - 1));
  };
  TestSetError error;
  error.of_mean = variance(mean_sum, mean_square);
  for (size_t j = 0; j < k; ++j)
    error.of_each += variance(sum[j], square[j]) / static_cast<double>(k);
  return error;
}

TestSetError test_set_error_of_influence(const std::vector<std::vector<double>>& influence,
                                         size_t width) {
  if (influence.empty() || influence.front().empty())
    throw std::invalid_argument("test-set error: no influence series");
  const size_t n = influence.front().size();
  std::vector<double> mean(n, 0.0);
  TestSetError error;
  const double k = static_cast<double>(influence.size());
  for (const auto& series : influence) {
    if (series.size() != n) throw std::invalid_argument("test-set error: series of unequal length");
    for (size_t i = 0; i < n; ++i) mean[i] += series[i] / k;
    error.of_each += long_run_variance(series, width) / static_cast<double>(n) / k;
  }
  error.of_mean = long_run_variance(mean, width) / static_cast<double>(n);
  return error;
}

SeedPooledTest seed_pooled_test(double baseline, const std::vector<double>& systems,
                                const TestSetError& error) {
  if (systems.size() < 2) throw std::invalid_argument("seed-pooled test: fewer than two seeds");
  SeedPooledTest t;
  t.seeds = systems.size();
  const double k = static_cast<double>(t.seeds);
  t.baseline = baseline;
  t.system = mean_of(systems);
  t.difference = t.system - baseline;
  double square = 0;
  for (double s : systems) square += (s - t.system) * (s - t.system);
  t.seed_sd = std::sqrt(square / (k - 1));
  const double seed_part = t.seed_sd * t.seed_sd / k, shared = error.shared(t.seeds);
  t.shared_se = std::sqrt(shared);
  t.se = std::sqrt(seed_part + shared);
  if (t.se == 0) {
    t.low = t.high = t.difference;
    t.p = t.difference == 0 ? 1 : 0;
    return t;
  }
  // sqrt(v(U)) at the chi^2_{k-1} quantiles' midpoints: the expectations over U as means.
  const std::vector<double>& u = chi_squared_nodes(t.seeds - 1);
  std::vector<double> sd(u.size());
  for (size_t i = 0; i < u.size(); ++i) sd[i] = std::sqrt(seed_part * (k - 1) / u[i] + shared);
  const auto beyond = [&](double x) {  // P(|R - mean d| >= x), R the generalised pivot
    double p = 0;
    for (double s : sd) p += std::erfc(x / s / std::sqrt(2.0));
    return p / static_cast<double>(sd.size());
  };
  t.p = std::min(1.0, beyond(std::fabs(t.difference)));
  // q between the normal's and far past Student's t on one degree of freedom: bisection.
  double low = 0, high = 1.96 * t.se;
  while (beyond(high) > 0.05) high *= 2;
  for (int i = 0; i < 50; ++i) (beyond((low + high) / 2) > 0.05 ? low : high) = (low + high) / 2;
  t.low = t.difference - high;
  t.high = t.difference + high;
  return t;
}

}  // namespace fathom
