#pragma once
// Serially dependent noise for the statistics' tests and benchmarks: x_t = phi x_{t-1} + e_t,
// e_t ~ N(0, sd^2), started from its stationary distribution (x_0 ~ N(0, sd^2 / (1 - phi^2))),
// so every value has the same variance and lag-k autocorrelation phi^k.
#include <cmath>
#include <random>
#include <vector>

namespace fathom::testing {

inline std::vector<double> ar1_series(size_t n, double phi, double sd, std::mt19937_64& rng) {
  std::normal_distribution<double> e(0, sd);
  std::vector<double> x(n);
  if (n == 0) return x;
  x[0] = e(rng) / std::sqrt(1 - phi * phi);
  for (size_t t = 1; t < n; ++t) x[t] = phi * x[t - 1] + e(rng);
  return x;
}

}  // namespace fathom::testing
