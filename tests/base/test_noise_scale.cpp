// The gradient noise scale's estimator (base/metrics/noise_scale.h) against a hand computation
// and against simulated gradients whose G and Sigma are known: unbiased, its jackknife errors
// the estimates' real spread, its interval covering the true B_simple, open where G = 0.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "base/metrics/noise_scale.h"
#include "tests/support/known_gradient.h"

namespace test_noise_scale {
using namespace fathom;

// Gradients g_b (one vector each) of batches of tokens[b] tokens -> the estimator's readings.
NoiseScaleReadings readings_of(const std::vector<std::vector<double>>& g,
                               const std::vector<double>& tokens) {
  const size_t d = g.at(0).size();
  double total = 0;
  for (double t : tokens) total += t;
  std::vector<double> mean(d, 0.0);
  for (size_t b = 0; b < g.size(); ++b)
    for (size_t i = 0; i < d; ++i) mean[i] += tokens[b] / total * g[b][i];
  NoiseScaleReadings r;
  for (size_t b = 0; b < g.size(); ++b) {
    double sq = 0, dot = 0;
    for (size_t i = 0; i < d; ++i) sq += g[b][i] * g[b][i], dot += mean[i] * g[b][i];
    r.tokens.push_back(tokens[b]);
    r.sq_norms.push_back(sq);
    r.dots.push_back(dot);
  }
  return r;
}

// Two one-token batches with gradients 1 and 3: their sample variance 2 is tr(Sigma) (B = 1),
// and the squared mean 4 less its variance 2 / 2 estimates |G|^2 = 3.
TEST(NoiseScale, TwoBatchesByHand) {
  const NoiseScaleEstimate e = estimate_noise_scale(readings_of({{1.0}, {3.0}}, {1, 1}));
  EXPECT_DOUBLE_EQ(e.mean_grad_sq, 4.0);
  EXPECT_DOUBLE_EQ(e.trace, 2.0);
  EXPECT_DOUBLE_EQ(e.grad_sq, 3.0);
  EXPECT_DOUBLE_EQ(e.b_simple, 2.0 / 3.0);
  EXPECT_EQ(e.batches, 2);
  EXPECT_DOUBLE_EQ(e.tokens, 2.0);
}

// Batches of 2 and 4 tokens with gradients (2, 0) and (0, 4): G_K = (2/3, 8/3), |G_K|^2 = 68/9,
// mean |g_b|^2 = 10, h = 3/8, 1/T = 1/6: tr = (10 - 68/9) / (3/8 - 1/6) = 176/15 and
// |G|^2 = 68/9 - tr / 6 = 252/45.
TEST(NoiseScale, UnequalBatchesByHand) {
  const NoiseScaleEstimate e = estimate_noise_scale(readings_of({{2.0, 0.0}, {0.0, 4.0}}, {2, 4}));
  EXPECT_NEAR(e.mean_grad_sq, 68.0 / 9, 1e-12);
  EXPECT_NEAR(e.trace, 176.0 / 15, 1e-12);
  EXPECT_NEAR(e.grad_sq, 68.0 / 9 - 176.0 / 90, 1e-12);
}

// A union of parameter groups: the readings add, and the estimate is the whole vector's.
TEST(NoiseScale, ReadingsOfDisjointGroupsAddToTheWholes) {
  const std::vector<std::vector<double>> g{{1, 2, 3}, {0, -1, 2}, {4, 1, 1}};
  const std::vector<double> t{3, 5, 4};
  NoiseScaleReadings parts = readings_of({{1}, {0}, {4}}, t);
  parts.add(readings_of({{2, 3}, {-1, 2}, {1, 1}}, t));
  const NoiseScaleEstimate whole = estimate_noise_scale(readings_of(g, t));
  const NoiseScaleEstimate summed = estimate_noise_scale(parts);
  EXPECT_NEAR(summed.trace, whole.trace, 1e-12);
  EXPECT_NEAR(summed.grad_sq, whole.grad_sq, 1e-12);
  EXPECT_NEAR(summed.trace_se, whole.trace_se, 1e-12);
  NoiseScaleReadings other = readings_of({{1}, {2}}, {1, 1});
  EXPECT_THROW(parts.add(other), std::invalid_argument);
}

TEST(NoiseScale, RefusesFewerThanTwoBatchesAndEmptyBatches) {
  EXPECT_THROW(estimate_noise_scale(readings_of({{1.0}}, {1})), std::invalid_argument);
  EXPECT_THROW(estimate_noise_scale(readings_of({{1.0}, {2.0}}, {1, 0})), std::invalid_argument);
}

// Simulated batches: g_b = G + Sigma^1/2 z / sqrt(T_b), T_b between 40 and 160 tokens, so that
// tr(Sigma) and |G|^2 -- and B_simple -- are known.
struct Simulation : fathom::testing::KnownGradient {
  NoiseScaleEstimate draw(std::mt19937_64& rng, int batches) const {
    std::uniform_int_distribution<int> size(40, 160);
    std::normal_distribution<double> z;
    std::vector<std::vector<double>> g(batches, std::vector<double>(mean.size()));
    std::vector<double> tokens(batches);
    for (int b = 0; b < batches; ++b) {
      tokens[b] = size(rng);
      for (size_t i = 0; i < mean.size(); ++i)
        g[b][i] = mean[i] + sd[i] * z(rng) / std::sqrt(tokens[b]);
    }
    return estimate_noise_scale(readings_of(g, tokens));
  }
};

Simulation twenty_coordinates(double signal) {
  return {fathom::testing::twenty_coordinates(signal)};
}

// Unbiased, jackknife errors matching the spread over repetitions, and the interval covering
// the true B_simple at least 95 % of the time (it is conservative: Bonferroni over two).
TEST(NoiseScale, SimulatedBatchesRecoverTheKnownNoiseScale) {
  const Simulation sim = twenty_coordinates(0.3);  // tr 82.7, |G|^2 0.92: B_simple 90 tokens
  const double truth = sim.trace() / sim.grad_sq();
  std::mt19937_64 rng(7);
  const int trials = 600;
  double trace_sum = 0, grad_sum = 0, trace_sq = 0, se_sum = 0;
  int covered = 0, wrong = 0;
  for (int i = 0; i < trials; ++i) {
    const NoiseScaleEstimate e = sim.draw(rng, 32);
    trace_sum += e.trace, grad_sum += e.grad_sq, trace_sq += e.trace * e.trace;
    se_sum += e.trace_se;
    if (e.b_low <= truth && truth <= e.b_high) ++covered;
    if (e.b_low <= 2 * truth && 2 * truth <= e.b_high) ++wrong;
  }
  const double trace_mean = trace_sum / trials, grad_mean = grad_sum / trials;
  const double trace_sd = std::sqrt(trace_sq / trials - trace_mean * trace_mean);
  EXPECT_NEAR(trace_mean, sim.trace(), 3 * trace_sd / std::sqrt(trials));
  EXPECT_NEAR(grad_mean, sim.grad_sq(), 0.03 * sim.grad_sq());
  EXPECT_NEAR(se_sum / trials, trace_sd, 0.15 * trace_sd);
  EXPECT_GE(covered, 0.95 * trials) << "true B_simple " << truth;
  EXPECT_LE(wrong, 0.2 * trials) << "an interval that covers twice the truth as often says little";
}

// A zero mean gradient: B_simple is infinite, and the interval stays open above (|G|^2's lower
// end at or below 0) in nearly every draw -- the estimator does not invent a signal.
TEST(NoiseScale, NoSignalLeavesTheIntervalOpenAbove) {
  const Simulation sim = twenty_coordinates(0.0);
  std::mt19937_64 rng(11);
  int open = 0;
  for (int i = 0; i < 300; ++i) {
    const NoiseScaleEstimate e = sim.draw(rng, 16);
    if (!e.resolved) {
      ++open;
      EXPECT_TRUE(std::isinf(e.b_high));
    }
  }
  EXPECT_GE(open, 0.97 * 300);
}

}  // namespace test_noise_scale
