#include "base/metrics/power.h"

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace fathom {

double two_sample_t_power(double d, int n, double alpha, double df_per_seed) {
  const double df = df_per_seed * (n - 1.0);
  const double critical =
      boost::math::quantile(boost::math::complement(boost::math::students_t(df), alpha / 2));
  const boost::math::non_central_t shifted(df, std::fabs(d) * std::sqrt(n / 2.0));
  // Rejections on the far side count too (two-sided), though they are rare for d > 0.
  return boost::math::cdf(boost::math::complement(shifted, critical)) +
         boost::math::cdf(shifted, -critical);
}

std::optional<int> seeds_for_power(double d, double alpha, double power, int cap,
                                   double df_per_seed) {
  if (!std::isfinite(d) || d == 0) return std::nullopt;
  // Power grows with n: bisect between a failing n (low) and a passing one (high).
  if (two_sample_t_power(d, cap, alpha, df_per_seed) < power) return std::nullopt;
  if (two_sample_t_power(d, 2, alpha, df_per_seed) >= power) return 2;
  int low = 2, high = cap;
  while (high - low > 1) {
    const int mid = low + (high - low) / 2;
    (two_sample_t_power(d, mid, alpha, df_per_seed) >= power ? high : low) = mid;
  }
  return high;
}

double welch_df_per_seed(double s_a, double s_b) {
  const double va = s_a * s_a, vb = s_b * s_b;
  if (va + vb == 0) return 2;
  return (va + vb) * (va + vb) / (va * va + vb * vb);
}

}  // namespace fathom
