#include "base/metrics/block_length.h"

#include <algorithm>
#include <cmath>

namespace fathom {
namespace {

// R(k) = 1/n sum_{t >= k} (x_t - mean)(x_{t-k} - mean): the biased estimate, as the paper's.
// Taken lag by lag as asked for: choosing the window reads lags only until K_N quiet ones in a
// row (a few dozen), where all sqrt(n) + 2 K_N of them cost ~1,000 passes over a million
// segments -- seconds, more than the test's draws. Each R(k) is the same sum either way.
class Autocovariances {
 public:
  explicit Autocovariances(const std::vector<double>& x) : centred_(x.size()) {
    const size_t n = x.size();
    double mean = 0;
    for (double v : x) mean += v / static_cast<double>(n);
    for (size_t t = 0; t < n; ++t) centred_[t] = x[t] - mean;
  }
  // R(0) .. R(lag), computed up to `lag` where not yet. The lags still missing are summed in
  // one pass over the series, each over t ascending as a pass of its own would add it (the
  // same sums): a drawn series' long-run variance, every draw of a studentised test, read the
  // series once instead of M + 1 times, and its M + 1 sums are chains of their own.
  const std::vector<double>& up_to(size_t lag) {
    const size_t first = r_.size(), n = centred_.size();
    if (lag < first) return r_;
    std::vector<double> sums(lag + 1 - first, 0.0);
    for (size_t t = first; t < n; ++t) {
      const double now = centred_[t];
      const size_t last = std::min(lag, t);  // lags k with t - k >= 0
      for (size_t k = first; k <= last; ++k) sums[k - first] += now * centred_[t - k];
    }
    for (double sum : sums) r_.push_back(sum / static_cast<double>(n));
    return r_;
  }

 private:
  std::vector<double> centred_;
  std::vector<double> r_;
};

double flat_top(double x) { return std::min(1.0, 2.0 * (1.0 - std::fabs(x))); }

// The flat-top lag window's pieces both choices below rest on: the autocovariances, the
// window's width M = 2 m-hat (0: no significant autocorrelation), and the series' length.
struct LagWindow {
  std::vector<double> r;
  size_t big_m = 0;
  size_t n = 0;
  bool constant = true;
};

LagWindow lag_window(const std::vector<double>& series) {
  LagWindow w;
  w.n = series.size();
  const size_t n = w.n;
  if (n < 8) return w;
  const double log_n = std::log10(static_cast<double>(n));
  const size_t k_n = std::max<size_t>(5, static_cast<size_t>(std::ceil(std::sqrt(log_n))));
  const size_t m_max = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(n)))) + k_n;
  const size_t lags = std::min(m_max + k_n, n - 1);
  Autocovariances covariances(series);
  const std::vector<double>& r = covariances.up_to(0);
  // A constant series leaves only rounding in R(0): nothing to resample in blocks.
  double scale = 0;
  for (double v : series) scale = std::max(scale, std::fabs(v));
  w.constant = !(r[0] > 1e-24 * scale * scale);
  if (w.constant) {
    w.r = r;
    return w;
  }
  const double band = 2.0 * std::sqrt(log_n / static_cast<double>(n));

  // m: the first lag after which K_N autocorrelations in a row are insignificant.
  size_t m = m_max;
  for (size_t candidate = 0; candidate <= m_max; ++candidate) {
    covariances.up_to(std::min(candidate + k_n, lags));
    bool quiet = true;
    for (size_t k = candidate + 1; k <= candidate + k_n && k <= lags; ++k)
      quiet = quiet && std::fabs(r[k] / r[0]) < band;
    if (quiet) {
      m = candidate;
      break;
    }
  }
  // At most the lags there are: with 8 or 9 segments m_max passes n - 1, and the sums below
  // read up to R(M).
  w.big_m = std::min({2 * m, m_max, lags});
  w.r = covariances.up_to(w.big_m);  // what the window's sums read
  return w;
}

// sum_{|k|<=M} h(k/M) R(k): the flat-top estimate of the long-run variance (both sums are
// symmetric in k: twice k = 1..M).
double flat_top_long_run_variance(const LagWindow& w) {
  double sum = w.r[0];
  for (size_t k = 1; k <= w.big_m; ++k)
    sum += 2.0 * flat_top(static_cast<double>(k) / static_cast<double>(w.big_m)) * w.r[k];
  return sum;
}

}  // namespace

size_t circular_block_length(const std::vector<double>& series) {
  const LagWindow w = lag_window(series);
  if (w.constant || w.big_m == 0) return 1;
  const double long_run_variance = flat_top_long_run_variance(w);
  // A flat-top estimate can come out non-positive (negatively correlated neighbours): blocks
  // would not widen anything then.
  if (!(long_run_variance > 0)) return 1;
  double g = 0;
  for (size_t k = 1; k <= w.big_m; ++k)
    g += 2.0 * flat_top(static_cast<double>(k) / static_cast<double>(w.big_m)) *
         static_cast<double>(k) * w.r[k];
  const double n = static_cast<double>(w.n);
  const double d = 4.0 / 3.0 * long_run_variance * long_run_variance;
  const double b = std::cbrt(2.0 * g * g * n / d);
  const double b_max = std::ceil(std::min(3.0 * std::sqrt(n), n / 3.0));
  return static_cast<size_t>(std::max(1.0, std::ceil(std::min(b, b_max))));
}

size_t flat_top_width(const std::vector<double>& series) {
  const LagWindow w = lag_window(series);
  return w.constant ? 0 : w.big_m;
}

double long_run_variance(const std::vector<double>& series, size_t width) {
  if (series.size() < 2) return 0;
  LagWindow w;
  w.n = series.size();
  w.big_m = std::min(width, series.size() - 1);
  w.r = Autocovariances(series).up_to(w.big_m);
  double scale = 0;
  for (double v : series) scale = std::max(scale, std::fabs(v));
  if (!(w.r[0] > 1e-24 * scale * scale)) return 0;  // constant: only rounding left
  const double flat_top = flat_top_long_run_variance(w);
  // Non-positive only where neighbours are negatively correlated: the variance of one segment
  // then overstates the mean's spread, which errs towards "inconclusive".
  return flat_top > 0 ? flat_top : w.r[0];
}

double long_run_variance(const std::vector<double>& series) {
  return long_run_variance(series, flat_top_width(series));
}

}  // namespace fathom
