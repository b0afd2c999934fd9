#include "experiments/grid_optimum.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "base/metrics/statistics.h"
#include "experiments/optimum_interval.h"

namespace fathom::experiments {
double log_grid_optimum(const std::vector<double>& x, const std::vector<double>& means,
                        bool* bracketed) {
  const size_t i =
      static_cast<size_t>(std::min_element(means.begin(), means.end()) - means.begin());
  *bracketed = i > 0 && i + 1 < x.size();
  if (!*bracketed) return x[i];
  return parabola_vertex(x[i - 1], x[i], x[i + 1], means[i - 1], means[i], means[i + 1]);
}

double ols_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : std::numeric_limits<double>::quiet_NaN();
}

std::string three_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

double parabola_vertex(double x0, double x1, double x2, double y0, double y1, double y2) {
  // Newton's divided differences: y = y0 + d1 (x - x0) + c (x - x0)(x - x1).
  const double d1 = (y1 - y0) / (x1 - x0), d2 = (y2 - y1) / (x2 - x1);
  const double c = (d2 - d1) / (x2 - x0);
  if (!(c > 0)) return x1;
  const double vertex = ((x0 + x1) - d1 / c) / 2;
  return std::clamp(vertex, x0, x2);
}

std::pair<double, double> percentiles(std::vector<double> draws, double tail) {
  std::sort(draws.begin(), draws.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(draws.size() - 1);
    const size_t below = static_cast<size_t>(std::floor(pos));
    const size_t above = std::min(below + 1, draws.size() - 1);
    const double frac = pos - static_cast<double>(below);
    if (frac == 0 || draws[below] == draws[above]) return draws[below];
    if (std::isinf(draws[below]) || std::isinf(draws[above]))  // no arithmetic on infinities
      return frac < 0.5 ? draws[below] : draws[above];
    return draws[below] + frac * (draws[above] - draws[below]);
  };
  return {at(tail), at(1 - tail)};
}

GridOptimum grid_optimum(const std::vector<double>& xs,
                         const std::vector<std::vector<double>>& values, int resamples,
                         unsigned long long seed) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  GridOptimum out;
  out.ci_lo = out.ci_hi = kNan;
  if (xs.empty() || xs.size() != values.size()) return out;
  std::vector<double> x, means;
  for (size_t i = 0; i < xs.size(); ++i) {
    x.push_back(std::log(xs[i]));
    double sum = 0;
    for (double v : values[i]) sum += v;
    means.push_back(sum / static_cast<double>(values[i].size()));
  }
  const size_t lowest =
      static_cast<size_t>(std::min_element(means.begin(), means.end()) - means.begin());
  out.grid_x = xs[lowest];
  out.x = std::exp(log_grid_optimum(x, means, &out.bracketed));
  std::mt19937_64 draw(seed);
  std::vector<double> resampled(xs.size());
  bool resamplable = true;
  for (const auto& v : values) resamplable = resamplable && v.size() >= 2;
  for (int b = 0; b < resamples; ++b) {
    for (size_t i = 0; i < values.size(); ++i)
      resampled[i] = rescaled_resampled_mean(values[i], means[i], draw);
    bool inside = false;
    out.draws.push_back(log_grid_optimum(x, resampled, &inside));
  }
  if (!out.bracketed) return out;
  const OptimumInterval ci = optimum_interval(x, values);
  out.interval_df = ci.df;
  if (resamplable && !std::isnan(ci.lo)) {
    out.ci_lo = std::exp(ci.lo);
    out.ci_hi = std::exp(ci.hi);
    out.interval_at_an_end = ci.lo <= x.front() || ci.hi >= x.back();
  }
  return out;
}

}  // namespace fathom::experiments
