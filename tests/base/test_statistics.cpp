// Intervals and tests over seeds (base/metrics/statistics.h) and the paired bootstrap of BLEU
// (base/metrics/bleu_bootstrap.h), against values worked by hand, Student's t tables and an
// independent numerical integration of the t density.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/metrics/bleu.h"
#include "base/metrics/bleu_bootstrap.h"
#include "base/metrics/statistics.h"

namespace test_statistics {

using fathom::summarize;

// P(|T| >= t) for Student's t with `df` degrees of freedom, by Simpson's rule on the density
// -- independent of the library under test.
double two_sided_p_by_integration(double t, double df) {
  const double c = std::exp(std::lgamma((df + 1) / 2) - std::lgamma(df / 2)) / std::sqrt(df * M_PI);
  auto density = [&](double x) { return c * std::pow(1 + x * x / df, -(df + 1) / 2); };
  const int n = 200000;  // even
  const double h = std::fabs(t) / n;
  double sum = density(0) + density(std::fabs(t));
  for (int i = 1; i < n; ++i) sum += density(i * h) * (i % 2 ? 4 : 2);
  return 1 - 2 * sum * h / 3;
}

TEST(Statistics, MeanStdAndTheTIntervalAgreeWithTheTables) {
  const auto s = summarize({1, 2, 3, 4});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(*s.std, std::sqrt(5.0 / 3.0), 1e-12);  // sum of squares 5 over n - 1 = 3
  // t_{0.975, 3} = 3.182446 (tables): 3.182446 * 1.290994 / 2.
  EXPECT_NEAR(*fathom::t_interval_half_width(s), 3.182446305 * std::sqrt(5.0 / 3.0) / 2, 1e-6);
  // t_{0.975, 1} = 12.706205, t_{0.975, 9} = 2.262157 (tables), std 1 by construction.
  EXPECT_NEAR(*fathom::t_interval_half_width(summarize({-1 / std::sqrt(2.0), 1 / std::sqrt(2.0)})),
              12.70620474 / std::sqrt(2.0), 1e-6);
  std::vector<double> ten;
  for (int i = 0; i < 10; ++i) ten.push_back(i % 2 ? 1 : -1);  // mean 0, s^2 = 10/9
  EXPECT_NEAR(*fathom::t_interval_half_width(summarize(ten)),
              2.262157163 * std::sqrt(10.0 / 9.0) / std::sqrt(10.0), 1e-6);
  // One seed has no spread and so no interval.
  EXPECT_FALSE(summarize({3}).std);
  EXPECT_FALSE(fathom::t_interval_half_width(summarize({3})));
  EXPECT_EQ(summarize({}).n, 0);
}

// Hesterberg's expanded percentile: the tail at Phi(-t_{0.975, df}); Phi by erfc, t from the
// tables (t_{0.975, 8} = 2.306004, t_{0.975, 1} = 12.706205).
TEST(Statistics, TheMedianIsTheMiddleOrTheMeanOfTheMiddleTwo) {
  EXPECT_FALSE(fathom::median({}));
  EXPECT_DOUBLE_EQ(*fathom::median({7}), 7);
  EXPECT_DOUBLE_EQ(*fathom::median({9, 1, 4}), 4);
  EXPECT_DOUBLE_EQ(*fathom::median({9, 1, 4, 2}), 3);  // (2 + 4) / 2
  EXPECT_DOUBLE_EQ(*fathom::median({5, 5, 1, 5}), 5);
}

TEST(Statistics, TheExpandedPercentileTailIsPhiOfMinusT) {
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  EXPECT_NEAR(fathom::expanded_percentile_tail(8), phi(-2.306004135), 1e-9);  // 1.0555 %
  EXPECT_NEAR(fathom::expanded_percentile_tail(8), 0.0105552, 1e-7);
  EXPECT_NEAR(fathom::expanded_percentile_tail(1), phi(-12.70620474), 1e-12);
  // Many degrees of freedom: the plain percentile's 2.5 %; none (one run a cell): the same.
  EXPECT_NEAR(fathom::expanded_percentile_tail(1e7), 0.025, 1e-6);
  EXPECT_NEAR(fathom::expanded_percentile_tail(0), 0.025, 1e-15);
  EXPECT_NEAR(fathom::expanded_percentile_tail(0, 0.9), 0.05, 1e-15);
}

TEST(Statistics, WelchTestByHandAndByIntegration) {
  // a: mean 2.5, s^2 = 5/3; b: mean 6, s^2 = 10. s_a^2/n_a = 5/12, s_b^2/n_b = 2.
  const auto w = fathom::welch_t_test({1, 2, 3, 4}, {2, 4, 6, 8, 10});
  ASSERT_TRUE(w);
  const double va = 5.0 / 12, vb = 2.0;
  EXPECT_NEAR(w->t, -3.5 / std::sqrt(va + vb), 1e-12);
  EXPECT_NEAR(w->df, (va + vb) * (va + vb) / (va * va / 3 + vb * vb / 4), 1e-12);  // 5.5208
  EXPECT_NEAR(w->df, 5.52079, 1e-5);
  EXPECT_NEAR(w->p, two_sided_p_by_integration(w->t, w->df), 1e-6);
  EXPECT_GT(w->p, 0.05);  // four and five seeds this far apart: not significant at 5 %
  EXPECT_LT(w->p, 0.1);

  // Symmetric in its arguments up to the sign of t.
  const auto back = fathom::welch_t_test({2, 4, 6, 8, 10}, {1, 2, 3, 4});
  EXPECT_NEAR(back->t, -w->t, 1e-12);
  EXPECT_NEAR(back->p, w->p, 1e-12);

  // Far apart with little spread: tiny p; equal samples: p = 1.
  EXPECT_LT(fathom::welch_t_test({10.0, 10.1, 9.9}, {20.0, 20.2, 19.8})->p, 1e-4);
  EXPECT_NEAR(fathom::welch_t_test({1, 2, 3}, {1, 2, 3})->p, 1, 1e-12);
  // No spread at all: the means decide.
  EXPECT_EQ(fathom::welch_t_test({2, 2}, {2, 2, 2})->p, 1);
  EXPECT_EQ(fathom::welch_t_test({2, 2}, {3, 3})->p, 0);
  // Fewer than two seeds on a side: no test.
  EXPECT_FALSE(fathom::welch_t_test({1}, {1, 2, 3}));
  EXPECT_FALSE(fathom::welch_t_test({1, 2}, {}));
}

// A corpus of `n` segments with a few words each.
std::vector<std::string> sentences(int n, const std::string& word) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back("the " + word + " number " + std::to_string(i) + " sat on the mat today .");
  return out;
}

TEST(PairedBootstrap, ASystemAgainstItselfIsNoDifference) {
  const auto refs = sentences(40, "cat");
  auto hyps = refs;
  for (int i = 0; i < 40; i += 3) hyps[i] = "a dog stood near the door";
  const fathom::PairedBootstrap r = fathom::paired_bootstrap_bleu(hyps, hyps, refs, 300);
  EXPECT_EQ(r.p, 1.0);
  EXPECT_EQ(r.baseline.score, r.system.score);
  EXPECT_EQ(r.baseline.mean, r.system.mean);
  EXPECT_EQ(r.samples, 300);
}

TEST(PairedBootstrap, AClearlyBetterSystemIsSignificantAndItsIntervalHoldsItsScore) {
  const auto refs = sentences(60, "cat");
  auto good = refs, poor = refs;
  for (int i = 0; i < 60; ++i) {
    if (i % 4 == 0) good[i] = "the cat sat on a mat";
    poor[i] = i % 2 ? "a dog stood near the door" : "the cat number sat";
  }
  const fathom::PairedBootstrap r = fathom::paired_bootstrap_bleu(poor, good, refs, 1000);
  EXPECT_DOUBLE_EQ(r.system.score, fathom::corpus_bleu(good, refs).score);
  EXPECT_DOUBLE_EQ(r.baseline.score, fathom::corpus_bleu(poor, refs).score);
  EXPECT_GT(r.system.score, r.baseline.score + 20);
  // No draw's centred difference comes near the real one: the smallest p there is.
  EXPECT_DOUBLE_EQ(r.p, 1.0 / 1001);
  for (const auto* b : {&r.baseline, &r.system}) {
    EXPECT_GT(b->ci, 0);
    EXPECT_LE(b->mean - b->ci, b->score);
    EXPECT_GE(b->mean + b->ci, b->score);
    EXPECT_NEAR(b->mean, b->score, 3);  // the draws centre on the whole set's score
  }
  // The same seed draws the same samples.
  const auto again = fathom::paired_bootstrap_bleu(poor, good, refs, 1000);
  EXPECT_EQ(again.system.mean, r.system.mean);
  EXPECT_EQ(again.p, r.p);
}

TEST(PairedBootstrap, SystemsThatDifferInOneSegmentAreNotSignificantlyDifferent) {
  const auto refs = sentences(80, "cat");
  auto a = refs, b = refs;
  for (int i = 0; i < 80; i += 2) a[i] = b[i] = "the cat sat on a mat";
  b[5] = "the cat number five sat on the mat";
  const auto r = fathom::paired_bootstrap_bleu(a, b, refs, 1000);
  EXPECT_NE(r.system.score, r.baseline.score);
  EXPECT_GT(r.p, 0.05);
}

TEST(PairedBootstrap, MismatchedInputIsRefused) {
  const auto refs = sentences(5, "cat");
  EXPECT_THROW(fathom::paired_bootstrap_bleu(refs, sentences(4, "cat"), refs),
               std::invalid_argument);
  EXPECT_THROW(fathom::paired_bootstrap_bleu({}, {}, {}), std::invalid_argument);
  EXPECT_THROW(fathom::paired_bootstrap_bleu(refs, refs, refs, 0), std::invalid_argument);
}

// Holm's adjustment worked by hand: sorted 0.01, 0.03, 0.04 of m = 3 become 3 x 0.01 = 0.03,
// max(0.03, 2 x 0.03) = 0.06 and max(0.06, 1 x 0.04) = 0.06 (the step-down maximum), back in
// the input's order; a product above 1 is cut to 1; one test is left as it is.
TEST(Statistics, HolmAdjustmentByHand) {
  const std::vector<double> adjusted = fathom::holm_adjust({0.01, 0.04, 0.03});
  ASSERT_EQ(adjusted.size(), 3u);
  EXPECT_NEAR(adjusted[0], 0.03, 1e-15);
  EXPECT_NEAR(adjusted[1], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[2], 0.06, 1e-15);
  const std::vector<double> capped = fathom::holm_adjust({0.5, 0.2});  // 2 x 0.2 = 0.4, then 0.5
  EXPECT_NEAR(capped[0], 0.5, 1e-15);
  EXPECT_NEAR(capped[1], 0.4, 1e-15);
  EXPECT_EQ(fathom::holm_adjust({0.7, 0.6})[0], 1.0);  // 2 x 0.6 = 1.2 -> 1, and 0.7 follows it
  EXPECT_EQ(fathom::holm_adjust({0.02})[0], 0.02);
  EXPECT_TRUE(fathom::holm_adjust({}).empty());
}

}  // namespace test_statistics
