#include "base/metrics/block_length.h"

#include <algorithm>
#include <cmath>

namespace fathom {
namespace {

// R(k) = 1/n sum_{t >= k} (x_t - mean)(x_{t-k} - mean): the biased estimate, as the paper's.
std::vector<double> autocovariances(const std::vector<double>& x, size_t lags) {
  const size_t n = x.size();
  double mean = 0;
  for (double v : x) mean += v / static_cast<double>(n);
  std::vector<double> centred(n);
  for (size_t t = 0; t < n; ++t) centred[t] = x[t] - mean;
  std::vector<double> r(lags + 1, 0.0);
  for (size_t k = 0; k <= lags; ++k) {
    double sum = 0;
    for (size_t t = k; t < n; ++t) sum += centred[t] * centred[t - k];
    r[k] = sum / static_cast<double>(n);
  }
  return r;
}

double flat_top(double x) { return std::min(1.0, 2.0 * (1.0 - std::fabs(x))); }

}  // namespace

size_t circular_block_length(const std::vector<double>& series) {
  const size_t n = series.size();
  if (n < 8) return 1;
  const double log_n = std::log10(static_cast<double>(n));
  const size_t k_n = std::max<size_t>(5, static_cast<size_t>(std::ceil(std::sqrt(log_n))));
  const size_t m_max = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(n)))) + k_n;
  const size_t lags = std::min(m_max + k_n, n - 1);
  const std::vector<double> r = autocovariances(series, lags);
  // A constant series leaves only rounding in R(0): nothing to resample in blocks.
  double scale = 0;
  for (double v : series) scale = std::max(scale, std::fabs(v));
  if (!(r[0] > 1e-24 * scale * scale)) return 1;
  const double band = 2.0 * std::sqrt(log_n / static_cast<double>(n));

  // m: the first lag after which K_N autocorrelations in a row are insignificant.
  size_t m = m_max;
  for (size_t candidate = 0; candidate <= m_max; ++candidate) {
    bool quiet = true;
    for (size_t k = candidate + 1; k <= candidate + k_n && k <= lags; ++k)
      quiet = quiet && std::fabs(r[k] / r[0]) < band;
    if (quiet) {
      m = candidate;
      break;
    }
  }
  const size_t big_m = std::min(2 * m, m_max);
  if (big_m == 0) return 1;

  double g = 0, long_run_variance = r[0];  // both sums are symmetric in k: twice k = 1..M
  for (size_t k = 1; k <= big_m; ++k) {
    const double w = flat_top(static_cast<double>(k) / static_cast<double>(big_m));
    g += 2.0 * w * static_cast<double>(k) * r[k];
    long_run_variance += 2.0 * w * r[k];
  }
  // A flat-top estimate can come out non-positive (negatively correlated neighbours): blocks
  // would not widen anything then.
  if (!(long_run_variance > 0)) return 1;
  const double d = 4.0 / 3.0 * long_run_variance * long_run_variance;
  const double b = std::cbrt(2.0 * g * g * static_cast<double>(n) / d);
  const double b_max =
      std::ceil(std::min(3.0 * std::sqrt(static_cast<double>(n)), static_cast<double>(n) / 3.0));
  return static_cast<size_t>(std::max(1.0, std::ceil(std::min(b, b_max))));
}

}  // namespace fathom
