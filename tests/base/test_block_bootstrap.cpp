// The circular block bootstrap for serially dependent segments (base/metrics/block_length.h,
// paired_bootstrap.h's draws, SegmentOrder::serial): the chosen block length against Politis &
// White's AR(1) formula and on independent noise, the draws' shape and their uniform cover of
// the segments, the test's size where neighbouring segments share their difficulty -- where
// drawing segments singly rejects far more true nulls than alpha -- and its studentisation
// (the long-run variance, the perplexity difference's influence, each test's own blocks).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "base/metrics/block_length.h"
#include "base/metrics/paired_bootstrap.h"
#include "base/metrics/perplexity_bootstrap.h"
#include "tests/support/ar1_series.h"

namespace test_block_bootstrap {
using fathom::SegmentNll;

constexpr auto ar1 = fathom::testing::ar1_series;

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
  // Independent errors under a shared drifting hardness: the systems' series need blocks, the
  // difference does not -- the test must not pay for the systems' dependence.
  const double blocks_without_dependence = null_rejection_rate(0.0, SegmentOrder::serial, 300, 23);
  std::printf(
      "true nulls rejected at 0.05: single draws %.3f, circular blocks %.3f, blocks "
      "on independent errors %.3f\n",
      single, blocks, blocks_without_dependence);
  EXPECT_GT(single, 0.25);
  // 300 replications: a binomial standard error of 1.3 points at 5 %. Shifted percentiles over
  // blocks rejected 9 % here (a block bootstrap's variance is biased low by O(1/b), Lahiri
  // 2003); studentised by the flat-top standard error, within two standard errors of alpha.
  EXPECT_LE(blocks, 0.077);
  EXPECT_GE(blocks, 0.023);
  EXPECT_LE(blocks_without_dependence, 0.077);
  EXPECT_GE(blocks_without_dependence, 0.023);
}

// sigma^2 = sum_k R(k): 1 / (1 - phi)^2 for an AR(1) series of unit innovations, the variance
// itself for independent values.
TEST(LongRunVariance, IsTheAr1FormulaAndTheVarianceOfIndependentValues) {
  std::mt19937_64 rng(29);
  for (double phi : {0.0, 0.5, 0.8}) {
    double mean = 0;
    for (int r = 0; r < 20; ++r) mean += fathom::long_run_variance(ar1(20000, phi, 1, rng)) / 20;
    const double formula = 1 / ((1 - phi) * (1 - phi));
    EXPECT_NEAR(mean, formula, 0.08 * formula) << "phi " << phi;
  }
  EXPECT_EQ(fathom::long_run_variance(std::vector<double>(100, 2.5)), 0.0);
  EXPECT_EQ(fathom::long_run_variance({4.0}), 0.0);
  // Fewer than 8 values: the plain variance (divided by n), 1.25 for 1, 2, 3, 4.
  EXPECT_DOUBLE_EQ(fathom::long_run_variance({1, 2, 3, 4}), 1.25);
}

// Politis & White's choice written out over every lag up to sqrt(n) + 2 K_N at once, as
// block_length.cpp took it until 2026-12-04: the lags it now takes only as far as the choice
// reads them give the same width M, block length and long-run variance, to the last bit.
struct FullRule {
  size_t width = 0, block = 1;
  double variance = 0;
};

FullRule full_rule(const std::vector<double>& x) {
  const size_t n = x.size();
  double mean = 0;
  for (double v : x) mean += v / static_cast<double>(n);
  const double log_n = std::log10(static_cast<double>(n));
  const size_t k_n = std::max<size_t>(5, static_cast<size_t>(std::ceil(std::sqrt(log_n))));
  const size_t m_max = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(n)))) + k_n;
  const size_t lags = std::min(m_max + k_n, n - 1);
  std::vector<double> r(lags + 1, 0.0);
  for (size_t k = 0; k <= lags; ++k) {
    double sum = 0;
    for (size_t t = k; t < n; ++t) sum += (x[t] - mean) * (x[t - k] - mean);
    r[k] = sum / static_cast<double>(n);
  }
  const double band = 2.0 * std::sqrt(log_n / static_cast<double>(n));
  size_t m = m_max;
  for (size_t c = 0; c <= m_max; ++c) {
    bool quiet = true;
    for (size_t k = c + 1; k <= c + k_n && k <= lags; ++k)
      quiet = quiet && std::fabs(r[k] / r[0]) < band;
    if (quiet) {
      m = c;
      break;
    }
  }
  FullRule out;
  out.width = std::min({2 * m, m_max, lags});
  const auto h = [&](size_t k) {
    return std::min(1.0, 2.0 * (1.0 - static_cast<double>(k) / static_cast<double>(out.width)));
  };
  double lrv = r[0], g = 0;
  for (size_t k = 1; k <= out.width; ++k) {
    lrv += 2.0 * h(k) * r[k];
    g += 2.0 * h(k) * static_cast<double>(k) * r[k];
  }
  out.variance = lrv > 0 ? lrv : r[0];
  if (out.width > 0 && lrv > 0) {
    const double b = std::cbrt(2.0 * g * g * static_cast<double>(n) / (4.0 / 3.0 * lrv * lrv));
    const double b_max = std::ceil(std::min(3.0 * std::sqrt(n), n / 3.0));
    out.block = static_cast<size_t>(std::max(1.0, std::ceil(std::min(b, b_max))));
  }
  return out;
}

TEST(CircularBlockLength, TakesOnlyTheLagsItReadsAndChoosesAsOverEveryLag) {
  std::mt19937_64 rng(41);
  for (size_t n : {size_t{8}, size_t{9}, size_t{50}, size_t{2000}, size_t{100000}})
    for (double phi : {0.0, 0.3, 0.7, 0.95}) {
      const std::vector<double> x = ar1(n, phi, 1, rng);
      const FullRule expected = full_rule(x);
      EXPECT_EQ(fathom::flat_top_width(x), expected.width) << n << ", phi " << phi;
      EXPECT_EQ(fathom::circular_block_length(x), expected.block) << n << ", phi " << phi;
      EXPECT_EQ(fathom::long_run_variance(x), expected.variance) << n << ", phi " << phi;
    }
}

// psi_k is the first-order change of the perplexity difference per unit weight on segment k:
// adding one more copy of segment k to n segments changes the difference by psi_k / (n + 1)
// (sum_k psi_k = 0), computed here from the exact corpus perplexities.
TEST(PerplexityInfluence, IsTheFirstOrderChangeOfTheDifferenceWhenASegmentCountsTwice) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> rate(2.5, 3.5);
  std::uniform_int_distribution<int64_t> length(10, 40);
  std::vector<SegmentNll> a, b;
  for (int k = 0; k < 400; ++k) {
    const int64_t t = length(rng);
    a.push_back({static_cast<double>(t) * rate(rng), t});
    b.push_back({static_cast<double>(t) * rate(rng), t});
  }
  const auto psi = fathom::perplexity_difference_influence({{a, b}});
  double sum = 0;
  for (double v : psi) sum += v;
  EXPECT_NEAR(sum, 0, 1e-9 * 400);
  const double whole = fathom::corpus_perplexity(b) - fathom::corpus_perplexity(a);
  for (size_t k : {0u, 17u, 399u}) {
    auto a2 = a, b2 = b;
    a2.push_back(a[k]);
    b2.push_back(b[k]);
    const double change = fathom::corpus_perplexity(b2) - fathom::corpus_perplexity(a2) - whole;
    EXPECT_NEAR(change, psi[k] / 401, 0.02 * std::fabs(psi[k] / 401) + 1e-9) << "segment " << k;
  }
}

// A hardness both systems share drifts along the text while their difference is independent:
// the test draws single segments, each system's interval draws blocks -- wider than single
// draws give it, since its neighbours share their hardness.
TEST(BlockBootstrap, DrawsTheTestAndTheSystemsIntervalsInBlocksOfTheirOwn) {
  std::mt19937_64 rng(37);
  const auto hardness = ar1(1000, 0.9, 0.1, rng);
  const auto own_a = ar1(1000, 0, 0.1, rng), own_b = ar1(1000, 0, 0.1, rng);
  std::vector<SegmentNll> a, b;
  for (size_t k = 0; k < 1000; ++k) {
    a.push_back({64 * (3 + hardness[k] + own_a[k]), 64});
    b.push_back({64 * (3 + hardness[k] + own_b[k]), 64});
  }
  const auto blocks = fathom::serial_block_lengths({{a, b}});
  ASSERT_EQ(blocks.difference, 1u);
  ASSERT_GT(blocks.scores, 5u);
  using fathom::SegmentOrder;
  const auto serial = fathom::paired_bootstrap_perplexity(a, b, 500, 3, SegmentOrder::serial);
  const auto single = fathom::paired_bootstrap_perplexity(a, b, 500, 3, SegmentOrder::independent);
  EXPECT_EQ(serial.block_length, 1u);
  EXPECT_EQ(serial.score_block_length, blocks.scores);
  EXPECT_FALSE(serial.studentised);
  // The same draws for the verdict as single draws give it.
  EXPECT_EQ(serial.p, single.p);
  EXPECT_EQ(serial.difference_low, single.difference_low);
  // AR(1) at 0.9: a mean's variance (1 + phi) / (1 - phi) = 19 times the independent one.
  EXPECT_GT(serial.baseline.ci, 2 * single.baseline.ci);
  EXPECT_GT(serial.system.ci, 2 * single.system.ci);
}

// With blocks the difference's test is studentised: its interval is d - q* se around the real
// difference, se the flat-top standard error of the influence.
TEST(BlockBootstrap, StudentisesTheDifferenceByTheFlatTopStandardErrorOfItsInfluence) {
  std::mt19937_64 rng(41);
  const auto own_a = ar1(800, 0.7, 0.1, rng), own_b = ar1(800, 0.7, 0.1, rng);
  std::vector<SegmentNll> a, b;
  for (size_t k = 0; k < 800; ++k) {
    a.push_back({64 * (3 + own_a[k]), 64});
    b.push_back({64 * (2.95 + own_b[k]), 64});
  }
  const auto test =
      fathom::paired_bootstrap_perplexity(a, b, 1000, 5, fathom::SegmentOrder::serial);
  ASSERT_TRUE(test.studentised);
  ASSERT_GT(test.block_length, 1u);
  const auto psi = fathom::perplexity_difference_influence({{a, b}});
  EXPECT_DOUBLE_EQ(test.difference_se, std::sqrt(fathom::long_run_variance(psi) / 800));
  EXPECT_LT(test.difference_low, test.difference);
  EXPECT_GT(test.difference_high, test.difference);
  // Percentile-t quantiles of a nearly normal t*: the interval is about +-1.96 se wide.
  const double half_width = 0.5 * (test.difference_high - test.difference_low);
  EXPECT_NEAR(half_width / test.difference_se, 1.96, 0.35);
}

}  // namespace test_block_bootstrap
