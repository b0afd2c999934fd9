// Seeds for 80 % power (base/metrics/power.h) against Cohen's (1988) table 2.4.1 for the
// two-sided two-sample t-test at alpha 0.05: d = 0.5 needs 64 per group, 0.8 needs 26, 1.0
// needs 17 -- and the normal approximation 2 (z_.975 + z_.8)^2 / d^2 = 15.7 at d = 1, which the
// t distribution's heavier tails push to 17.
#include <gtest/gtest.h>

#include <cmath>

#include "base/metrics/power.h"
#include "base/metrics/statistics.h"

namespace test_power {
using namespace fathom;

TEST(Power, CohensTableForTheTwoSampleTTest) {
  EXPECT_EQ(seeds_for_power(0.5, 0.05), 64);
  EXPECT_EQ(seeds_for_power(0.8, 0.05), 26);
  EXPECT_EQ(seeds_for_power(1.0, 0.05), 17);
  EXPECT_EQ(seeds_for_power(-1.0, 0.05), 17);  // the sign of the difference does not matter
  // The smallest such n: one fewer falls short.
  EXPECT_GE(two_sample_t_power(1.0, 17, 0.05), 0.8);
  EXPECT_LT(two_sample_t_power(1.0, 16, 0.05), 0.8);
  // Power at d = 1, n = 17 is 0.807 (G*Power and R's power.t.test agree to three decimals).
  EXPECT_NEAR(two_sample_t_power(1.0, 17, 0.05), 0.807, 0.001);
}

// A stricter level needs more seeds; no difference needs infinitely many; a cap bounds the
// search.
TEST(Power, StricterLevelsNeedMoreSeedsAndNoDifferenceNeverDecides) {
  const int at_05 = *seeds_for_power(1.0, 0.05);
  const int at_005 = *seeds_for_power(1.0, 0.005);
  EXPECT_GT(at_005, at_05);
  EXPECT_EQ(seeds_for_power(0.0, 0.05), std::nullopt);
  EXPECT_EQ(seeds_for_power(NAN, 0.05), std::nullopt);
  EXPECT_EQ(seeds_for_power(0.01, 0.05, 0.8, 1000), std::nullopt);  // about 157,000 needed
  EXPECT_EQ(seeds_for_power(10.0, 0.05), 2);  // a huge difference: the fewest that can test
}

// Welch's degrees of freedom per seed: with n per arm, Welch-Satterthwaite's df is
// (n - 1) (s_a^2 + s_b^2)^2 / (s_a^4 + s_b^4). s = 1 and 2: 25/17 per seed, so at 3 seeds 50/17,
// the df welch_t_test gives {1, 2, 3} against {2, 4, 6}; equal spreads 2 (the pooled test's
// 2n - 2), one arm without spread 1. Fewer degrees of freedom, more seeds.
TEST(Power, WelchDegreesOfFreedomPerSeed) {
  EXPECT_NEAR(welch_df_per_seed(1, 2), 25.0 / 17, 1e-15);
  EXPECT_NEAR(2 * welch_df_per_seed(1, 2), welch_t_test({1, 2, 3}, {2, 4, 6})->df, 1e-12);
  EXPECT_DOUBLE_EQ(welch_df_per_seed(3, 3), 2);
  EXPECT_DOUBLE_EQ(welch_df_per_seed(3, 0), 1);
  EXPECT_GT(*seeds_for_power(1.0, 0.05, 0.8, 10000, 1.0), 17);
}

}  // namespace test_power
