// The circular block bootstrap for serially dependent segments (base/metrics/block_length.h,
// paired_bootstrap.h's draws, SegmentOrder::serial): the chosen block length against Politis &
// White's AR(1) formula and on independent noise, the draws' shape and their uniform cover of
// the segments, and the test's size where neighbouring segments share their difficulty -- where
// drawing segments singly rejects far more true nulls than alpha.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "base/metrics/block_length.h"
#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"

namespace test_block_bootstrap {
using fathom::SegmentNll;

// x_t = phi x_{t-1} + e_t, e_t ~ N(0, sd^2), started from its stationary distribution.
std::vector<double> ar1(size_t n, double phi, double sd, std::mt19937_64& rng) {
  std::normal_distribution<double> e(0, sd);
  std::vector<double> x(n);
  x[0] = e(rng) / std::sqrt(1 - phi * phi);
  for (size_t t = 1; t < n; ++t) x[t] = phi * x[t - 1] + e(rng);
  return x;
}

TEST(CircularBlockLength, IsOneForIndependentNoiseAConstantAndAShortSeries) {
  std::mt19937_64 rng(5);
  int ones = 0;
  for (int r = 0; r < 40; ++r) ones += fathom::circular_block_length(ar1(2000, 0.0, 1, rng)) == 1;
  // An autocorrelation of white noise crosses the +-2 sqrt(log10 n / n) band (3.6 standard
  // errors at n = 2,000) about once in 3,000 lags.
  EXPECT_GE(ones, 38);
  EXPECT_EQ(fathom::circular_block_length(std::vector<double>(500, 3.0)), 1u);
  EXPECT_EQ(fathom::circular_block_length({1, 5, 2, 6}), 1u);
}

// Politis & White's optimal circular block length for AR(1): G = 2 g0 phi / (1 - phi)^2 and
// sigma^2 = g0 (1 + phi) / (1 - phi), so b = (2 G^2 n / (4/3 sigma^4))^(1/3) =
// (6 phi^2 / (1 - phi^2)^2)^(1/3) n^(1/3) (37.6 at phi 0.5, 84 at phi 0.8, n = 20,000).
TEST(CircularBlockLength, FollowsPolitisAndWhitesFormulaForAnAr1Series) {
  std::mt19937_64 rng(17);
  const size_t n = 20000;
  for (double phi : {0.5, 0.8}) {
    const double formula =
        std::cbrt(6 * phi * phi / std::pow(1 - phi * phi, 2) * static_cast<double>(n));
    double mean = 0;
    for (int r = 0; r < 10; ++r)
      mean += static_cast<double>(fathom::circular_block_length(ar1(n, phi, 1, rng))) / 10;
    std::printf("phi %.1f: mean block length %.1f, formula %.1f\n", phi, mean, formula);
    EXPECT_NEAR(mean, formula, 0.25 * formula) << "phi " << phi;
  }
}

TEST(CircularBlockDraws, AreRunsOfNeighboursWrappingPastTheEndAndCoverEverySegmentEvenly) {
  const size_t n = 10, length = 4;
  std::mt19937_64 rng(3);
  std::vector<size_t> drawn(n);
  std::vector<int> seen(n, 0);
  const int draws = 20000;
  for (int d = 0; d < draws; ++d) {
    fathom::draw_segments(drawn, length, rng);
    for (size_t i = 0; i < n; ++i) {
      ++seen[drawn[i]];
      if (i % length != 0) {
        EXPECT_EQ(drawn[i], (drawn[i - 1] + 1) % n) << "position " << i;
      }
    }
  }
  // Wrapping makes every segment as likely as any other (a moving block bootstrap without it
  // would draw the first and last segments less often): n draws' worth each, within 3 %.
  for (size_t k = 0; k < n; ++k) EXPECT_NEAR(seen[k], draws, 0.03 * draws) << "segment " << k;
}

// Test sets of 1,000 blocks of 64 tokens from one text: a hardness both systems share that
// drifts slowly along the text (AR(1), phi 0.9), and each system's own error that persists
// over neighbouring blocks (AR(1), phi 0.7) -- equal quality, so every rejection is a false one.
double null_rejection_rate(double phi, fathom::SegmentOrder order, int replications,
                           uint64_t seed) {
  std::mt19937_64 rng(seed);
  int rejected = 0;
  for (int r = 0; r < replications; ++r) {
    const auto hardness = ar1(1000, 0.9, 0.1, rng);
    const auto own_a = ar1(1000, phi, 0.1, rng), own_b = ar1(1000, phi, 0.1, rng);
    std::vector<SegmentNll> a, b;
    for (size_t k = 0; k < 1000; ++k) {
      a.push_back({64 * (3 + hardness[k] + own_a[k]), 64});
      b.push_back({64 * (3 + hardness[k] + own_b[k]), 64});
    }
    rejected += fathom::paired_bootstrap_perplexity(a, b, 500, rng(), order).p < 0.05;
  }
  return static_cast<double>(rejected) / replications;
}

TEST(BlockBootstrap, KeepsItsSizeOnSeriallyDependentSegmentsWhereSingleDrawsDoNot) {
  using fathom::SegmentOrder;
  // phi 0.7 makes the variance of the mean difference (1 + phi) / (1 - phi) = 5.7 times what
  // independent segments would give: single draws see a standard error 2.4 times too small
  // and reject |Z| > 1.96 / 2.4, about 41 % of true nulls.
  const double single = null_rejection_rate(0.7, SegmentOrder::independent, 300, 21);
  const double blocks = null_rejection_rate(0.7, SegmentOrder::serial, 300, 21);
  // Independent errors: blocks must not cost the size where there is nothing to fix.
  const double blocks_without_dependence = null_rejection_rate(0.0, SegmentOrder::serial, 300, 23);
  std::printf(
      "true nulls rejected at 0.05: single draws %.3f, circular blocks %.3f, blocks "
      "on independent errors %.3f\n",
      single, blocks, blocks_without_dependence);
  EXPECT_GT(single, 0.25);
  // 300 replications: a binomial standard error of 1.3 points at 5 %. A block bootstrap's
  // variance is biased low by O(1/b) (Lahiri 2003, s3), so up to twice alpha is its known
  // small-sample cost -- against four times what single draws cost.
  EXPECT_LE(blocks, 0.10);
  EXPECT_GE(blocks, 0.02);
  EXPECT_LE(blocks_without_dependence, 0.08);
  EXPECT_GE(blocks_without_dependence, 0.02);
}

}  // namespace test_block_bootstrap
