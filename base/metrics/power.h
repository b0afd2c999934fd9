#pragma once
// How many seeds would decide a comparison: the sample size per arm at which a two-sided
// two-sample t-test of level alpha has the asked power against a standardized difference d
// (Cohen 1988, ch. 2): the smallest n with
//     P(|T| > t_{1 - alpha/2, 2n - 2}) >= power,   T ~ noncentral t(2n - 2, d sqrt(n / 2)),
// d = (mean_a - mean_b) / s_pooled, s_pooled^2 = (s_a^2 + s_b^2) / 2 (equal arms); for
// Welch's test the degrees of freedom are Welch-Satterthwaite's at n per arm. The exact
// noncentral t (Boost.Math), not the normal approximation, which undercounts at small n:
// d = 1, alpha 0.05, power 0.8 needs 17 per arm (Cohen's table 2.4.1), the normal formula 16.
#include <optional>

namespace fathom {

// Power of the two-sided two-sample t-test with n per arm at effect size d, with
// df_per_seed (n - 1) degrees of freedom: 2 for the equal-variance test (2n - 2). Welch's test
// of arms with variances s_a^2, s_b^2 has, by Welch-Satterthwaite with n per arm,
// (n - 1) (s_a^2 + s_b^2)^2 / (s_a^4 + s_b^4): df_per_seed between 1 (one arm's spread
// dominates) and 2 (equal spreads). The noncentrality d sqrt(n / 2) is the same for both.
double two_sample_t_power(double d, int n, double alpha, double df_per_seed = 2);

// The smallest n >= 2 per arm reaching `power`; nullopt when d is 0 (or not finite) or more
// than `cap` would be needed.
std::optional<int> seeds_for_power(double d, double alpha, double power = 0.8, int cap = 10000,
                                   double df_per_seed = 2);

// Welch's df_per_seed for arms with these standard deviations (2 when both are 0).
double welch_df_per_seed(double s_a, double s_b);

}  // namespace fathom
