#include "base/metrics/seed_pooled_test.h"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/metrics/block_length.h"
#include "base/metrics/statistics.h"

namespace fathom {
namespace {

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
    const double m = summarize(draw).mean;
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

namespace {

// An arm's W = k / (k - 1) (mean_j Var(e_j) - Var(mean e)); 0 for one run.
double unshared(double each, double of_mean, size_t k) {
  if (k < 2) return 0;
  const double kd = static_cast<double>(k);
  return std::max(0.0, kd / (kd - 1) * (each - of_mean));
}

// sqrt(v(U_a, U_b)) at the quadrature's nodes: an arm of k >= 2 runs contributes
// part * (k - 1) / U, U ~ chi^2_{k-1}; two such arms take a grid of their nodes.
std::vector<double> pivot_sds(const std::vector<std::pair<double, size_t>>& parts, double shared) {
  std::vector<double> v{shared};
  size_t arms_with_seeds = 0;
  for (const auto& part : parts) arms_with_seeds += part.second > 1 ? 1 : 0;
  for (const auto& [part, k] : parts) {
    if (k < 2) continue;
    const std::vector<double>& u = chi_squared_nodes(k - 1);
    // Two arms: every 4th node of each, a 128 x 128 grid (p to about 2e-3).
    const size_t stride = arms_with_seeds > 1 ? 4 : 1;
    std::vector<double> next;
    for (double base : v)
      for (size_t i = stride / 2; i < u.size(); i += stride)
        next.push_back(base + part * static_cast<double>(k - 1) / u[i]);
    v = std::move(next);
  }
  for (double& x : v) x = std::sqrt(x);
  return v;
}

// The generalised test's p and half-width at sqrt(v) `sd`.
void generalised(double difference, const std::vector<double>& sd, double& p, double& half) {
  const auto beyond = [&](double x) {  // P(|R - d| >= x), R the generalised pivot
    double sum = 0;
    for (double s : sd) sum += std::erfc(x / s / std::sqrt(2.0));
    return sum / static_cast<double>(sd.size());
  };
  p = std::min(1.0, beyond(std::fabs(difference)));
  // q where beyond(q) = 0.05, bracketed from the normal's (the smallest spread) upward and
  // found by regula falsi with the Illinois step (a few dozen sums where bisection took 50+).
  double low = 0, f_low = 0.95, high = 1.96 * *std::min_element(sd.begin(), sd.end());
  double f_high = beyond(high) - 0.05;
  while (f_high > 0) {
    low = high;
    f_low = f_high;
    high *= 2;
    f_high = beyond(high) - 0.05;
  }
  int side = 0;
  for (int i = 0; i < 100 && high - low > 1e-10 * high; ++i) {
    const double x = (low * f_high - high * f_low) / (f_high - f_low);
    const double f = beyond(x) - 0.05;
    if (f > 0) {
      low = x;
      f_low = f;
      if (side == 1) f_high /= 2;
      side = 1;
    } else {
      high = x;
      f_high = f;
      if (side == -1) f_low /= 2;
      side = -1;
    }
  }
  half = high;
}

}  // namespace

double ArmsTestSetError::shared(size_t seeds_a, size_t seeds_b) const {
  return std::max(0.0, of_difference - unshared_a / static_cast<double>(seeds_a) -
                           unshared_b / static_cast<double>(seeds_b));
}

ArmsTestSetError arms_error_of_draws(const std::vector<std::vector<double>>& draws,
                                     size_t seeds_a) {
  if (draws.size() < 2) throw std::invalid_argument("test-set error: fewer than two draws");
  const size_t runs = draws.front().size();
  if (seeds_a == 0 || seeds_a >= runs)
    throw std::invalid_argument("test-set error: an arm without runs");
  // Per draw: arm a's mean, arm b's, and their difference; the arms' errors as one-arm ones.
  std::vector<std::vector<double>> a, b;
  std::vector<double> difference;
  for (const auto& draw : draws) {
    if (draw.size() != runs) throw std::invalid_argument("test-set error: draws of unequal size");
    a.emplace_back(draw.begin(), draw.begin() + static_cast<std::ptrdiff_t>(seeds_a));
    b.emplace_back(draw.begin() + static_cast<std::ptrdiff_t>(seeds_a), draw.end());
    difference.push_back(summarize(a.back()).mean - summarize(b.back()).mean);
  }
  const TestSetError of_a = test_set_error_of_draws(a), of_b = test_set_error_of_draws(b);
  ArmsTestSetError error;
  error.of_difference = std::pow(summarize(difference).std.value_or(0), 2);
  error.unshared_a = unshared(of_a.of_each, of_a.of_mean, seeds_a);
  error.unshared_b = unshared(of_b.of_each, of_b.of_mean, runs - seeds_a);
  return error;
}

ArmsTestSetError arms_error_of_influence(const std::vector<std::vector<double>>& influence,
                                         size_t seeds_a, size_t width) {
  if (seeds_a == 0 || seeds_a >= influence.size())
    throw std::invalid_argument("test-set error: an arm without runs");
  const std::vector<std::vector<double>> a(
      influence.begin(), influence.begin() + static_cast<std::ptrdiff_t>(seeds_a));
  const std::vector<std::vector<double>> b(influence.begin() + static_cast<std::ptrdiff_t>(seeds_a),
                                           influence.end());
  const TestSetError of_a = test_set_error_of_influence(a, width);
  const TestSetError of_b = test_set_error_of_influence(b, width);
  std::vector<double> difference(influence.front().size(), 0.0);
  for (size_t r = 0; r < influence.size(); ++r) {
    const double weight = r < seeds_a ? 1.0 / static_cast<double>(seeds_a)
                                      : -1.0 / static_cast<double>(influence.size() - seeds_a);
    for (size_t k = 0; k < difference.size(); ++k) difference[k] += weight * influence[r][k];
  }
  ArmsTestSetError error;
  error.of_difference = test_set_error_of_influence({difference}, width).of_mean;
  error.unshared_a = unshared(of_a.of_each, of_a.of_mean, seeds_a);
  error.unshared_b = unshared(of_b.of_each, of_b.of_mean, b.size());
  return error;
}

SeedArmsTest seed_arms_test(const std::vector<double>& a, const std::vector<double>& b,
                            const ArmsTestSetError& error) {
  if (a.empty() || b.empty()) throw std::invalid_argument("seed test: an arm without runs");
  if (a.size() < 2 && b.size() < 2)
    throw std::invalid_argument("seed test: neither arm has two seeds");
  SeedArmsTest t;
  t.seeds_a = a.size();
  t.seeds_b = b.size();
  const SampleSummary of_a = summarize(a), of_b = summarize(b);
  t.mean_a = of_a.mean;
  t.mean_b = of_b.mean;
  t.difference = t.mean_a - t.mean_b;
  t.sd_a = of_a.std.value_or(0);  // one run: a fixed arm
  t.sd_b = of_b.std.value_or(0);
  const double part_a = t.sd_a * t.sd_a / static_cast<double>(t.seeds_a);
  const double part_b = t.sd_b * t.sd_b / static_cast<double>(t.seeds_b);
  const double shared = error.shared(t.seeds_a, t.seeds_b);
  t.shared_se = std::sqrt(shared);
  t.se = std::sqrt(part_a + part_b + shared);
  if (t.se == 0) {
    t.low = t.high = t.difference;
    t.p = t.difference == 0 ? 1 : 0;
    return t;
  }
  double half = 0;
  generalised(t.difference, pivot_sds({{part_a, t.seeds_a}, {part_b, t.seeds_b}}, shared), t.p,
              half);
  t.low = t.difference - half;
  t.high = t.difference + half;
  return t;
}

SeedPooledTest seed_pooled_test(double baseline, const std::vector<double>& systems,
                                const TestSetError& error) {
  if (systems.size() < 2) throw std::invalid_argument("seed-pooled test: fewer than two seeds");
  ArmsTestSetError arms;
  arms.of_difference = error.of_mean;
  arms.unshared_a = unshared(error.of_each, error.of_mean, systems.size());
  return as_pooled(seed_arms_test(systems, {baseline}, arms));
}

SeedArmsTest seed_paired_test(const std::vector<double>& a, const std::vector<double>& b,
                              const TestSetError& error) {
  if (a.size() != b.size())
    throw std::invalid_argument("seed-paired test: " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()) + " runs do not pair");
  if (a.size() < 2) throw std::invalid_argument("seed-paired test: fewer than two pairs");
  std::vector<double> differences;
  for (size_t j = 0; j < a.size(); ++j) differences.push_back(a[j] - b[j]);
  const SeedPooledTest paired = seed_pooled_test(0, differences, error);
  SeedArmsTest t;
  t.seeds_a = t.seeds_b = a.size();
  const SampleSummary of_a = summarize(a), of_b = summarize(b);
  t.mean_a = of_a.mean;
  t.mean_b = of_b.mean;
  t.sd_a = of_a.std.value_or(0);
  t.sd_b = of_b.std.value_or(0);
  t.difference = paired.difference;
  t.shared_se = paired.shared_se;
  t.se = paired.se;
  t.low = paired.low;
  t.high = paired.high;
  t.p = paired.p;
  t.paired_by_seed = true;
  return t;
}

SeedPooledTest as_pooled(const SeedArmsTest& arm) {
  SeedPooledTest t;
  t.seeds = arm.seeds_a;
  t.baseline = arm.mean_b;
  t.system = arm.mean_a;
  t.difference = arm.difference;
  t.seed_sd = arm.sd_a;
  t.shared_se = arm.shared_se;
  t.se = arm.se;
  t.low = arm.low;
  t.high = arm.high;
  t.p = arm.p;
  t.lag_window = arm.lag_window;
  return t;
}

namespace {

// The k whose sqrt(per_seed / k + C) puts `difference` z_{1-alpha/2} + z_power of them from 0.
SeedsToDecide plan_seeds(double difference, double shared_se, double per_seed, double alpha,
                         double power) {
  SeedsToDecide out;
  if (difference == 0) return out;
  const boost::math::normal normal;
  const double z =
      boost::math::quantile(normal, 1 - alpha / 2) + boost::math::quantile(normal, power);
  const double room = std::pow(difference / z, 2) - shared_se * shared_se;
  if (room <= 0) {
    out.test_set_limits = true;
    return out;
  }
  out.seeds = static_cast<int>(std::clamp(std::ceil(per_seed / room), 2.0, 1e6));
  return out;
}

}  // namespace

SeedsToDecide seeds_to_decide(const SeedPooledTest& t, double alpha, double power) {
  return plan_seeds(t.difference, t.shared_se, t.seed_sd * t.seed_sd, alpha, power);
}

SeedsToDecide seeds_to_decide(const SeedArmsTest& t, double alpha, double power) {
  const double per_seed =
      t.paired_by_seed
          ? static_cast<double>(t.seeds_a) * std::max(0.0, t.se * t.se - t.shared_se * t.shared_se)
          : t.sd_a * t.sd_a + t.sd_b * t.sd_b;
  return plan_seeds(t.difference, t.shared_se, per_seed, alpha, power);
}

}  // namespace fathom
