#include "base/metrics/statistics.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numeric>

namespace fathom {

SampleSummary summarize(const std::vector<double>& values) {
  SampleSummary s;
  s.n = static_cast<int>(values.size());
  if (s.n == 0) return s;
  for (double v : values) s.mean += v;
  s.mean /= s.n;
  if (s.n >= 2) {
    double ss = 0;
    for (double v : values) ss += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(ss / (s.n - 1));  // seeds are a sample of the runs one could train
  }
  return s;
}

std::optional<double> t_interval_half_width(const SampleSummary& sample, double level) {
  if (sample.n < 2 || !sample.std) return std::nullopt;
  const boost::math::students_t t(sample.n - 1);
  const double quantile = boost::math::quantile(t, 0.5 + level / 2);
  return quantile * *sample.std / std::sqrt(static_cast<double>(sample.n));
}

double expanded_percentile_tail(double df, double level) {
  if (!(df >= 1)) return (1 - level) / 2;
  const double t = boost::math::quantile(boost::math::students_t(df), 0.5 + level / 2);
  return boost::math::cdf(boost::math::normal(), -t);
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return 0.5 * (*middle + *std::max_element(values.begin(), middle));
}

double rescaled_bootstrap_mean(double drawn, double mean, size_t n) {
  if (n < 2) return drawn;
  return mean + std::sqrt(static_cast<double>(n) / static_cast<double>(n - 1)) * (drawn - mean);
}

double rescaled_resampled_mean(const std::vector<double>& values, double mean,
                               std::mt19937_64& draw) {
  const size_t n = values.size();
  double sum = 0;
  for (size_t k = 0; k < n; ++k) sum += values[draw() % n];
  return rescaled_bootstrap_mean(sum / static_cast<double>(n), mean, n);
}

std::optional<WelchTest> welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  const SampleSummary x = summarize(a), y = summarize(b);
  if (x.n < 2 || y.n < 2) return std::nullopt;
  const double va = *x.std * *x.std / x.n, vb = *y.std * *y.std / y.n;
  WelchTest w;
  if (va + vb == 0) {  // no spread on either side: the means are equal or they are not
    w.df = x.n + y.n - 2;
    w.t = x.mean == y.mean
              ? 0
              : std::copysign(std::numeric_limits<double>::infinity(), x.mean - y.mean);
    w.p = x.mean == y.mean ? 1 : 0;
    return w;
  }
  w.t = (x.mean - y.mean) / std::sqrt(va + vb);
  w.df = (va + vb) * (va + vb) / (va * va / (x.n - 1) + vb * vb / (y.n - 1));
  const boost::math::students_t t(w.df);
  w.p = 2 * boost::math::cdf(boost::math::complement(t, std::fabs(w.t)));
  return w;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running = 0;  // the step-down maximum keeps the adjusted values in the raw ones' order
  for (size_t rank = 0; rank < m; ++rank) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - rank) * p[order[rank]]));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace fathom
