// The training-time noise scale (base/metrics/noise_scale_window.h): one update's two-batch
// solution by hand, a window's means, standard errors and interval by hand, pooling, and
// simulated updates whose G and Sigma are known -- unbiased per update, the window's standard
// errors the real spread of its means, its interval covering the true B_simple.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "base/metrics/noise_scale_window.h"
#include "tests/support/known_gradient.h"

namespace test_noise_scale_window {
using namespace fathom;

// One coordinate, per-token gradients 1, 3, 2, 6: the first two tokens are the small batch
// (mean 2, |g|^2 4, 1/B 1/2), all four the update (mean 3, |g|^2 9, B 4):
// tr = (4 - 9) / (1/2 - 1/4) = -20 and |G|^2 = 9 - (-20) / 4 = 14.
TEST(NoiseScaleWindow, OneUpdateByHand) {
  double trace = 0, grad_sq = 0;
  solve_two_batch(TwoBatchReading{4.0, 0.5, 9.0, 4.0}, trace, grad_sq);
  EXPECT_DOUBLE_EQ(trace, -20.0);
  EXPECT_DOUBLE_EQ(grad_sq, 14.0);
}

TEST(NoiseScaleWindow, RefusesASmallBatchNoSmallerThanTheUpdate) {
  double trace = 0, grad_sq = 0;
  EXPECT_THROW(solve_two_batch(TwoBatchReading{4.0, 0.25, 9.0, 4.0}, trace, grad_sq),
               std::invalid_argument);
  EXPECT_THROW(solve_two_batch(TwoBatchReading{4.0, 0.5, 9.0, 0.0}, trace, grad_sq),
               std::invalid_argument);
  EXPECT_THROW(estimate_noise_scale(NoiseScaleWindow{}), std::invalid_argument);
}

// Updates with estimates (tr, |G|^2) = (1, 2) and (3, 4): means 2 and 3, each with standard
// error sd / sqrt 2 = 1; B_simple 2/3; the interval's ends from z = 2.2414 (two 97.5 % ones).
TEST(NoiseScaleWindow, TwoUpdatesByHand) {
  NoiseScaleWindow w;
  w.add(1.0, 2.0);
  w.add(3.0, 4.0);
  const NoiseScaleEstimate e = estimate_noise_scale(w);
  const double z = 2.2414027276049473;
  EXPECT_EQ(e.batches, 2);
  EXPECT_DOUBLE_EQ(e.trace, 2.0);
  EXPECT_DOUBLE_EQ(e.grad_sq, 3.0);
  EXPECT_NEAR(e.trace_se, 1.0, 1e-12);
  EXPECT_NEAR(e.grad_sq_se, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(e.b_simple, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(e.b_low, 0.0);  // tr's lower end 2 - z is below 0
  EXPECT_TRUE(e.resolved);
  EXPECT_NEAR(e.b_high, (2.0 + z) / (3.0 - z), 1e-9);
}

// One update has no spread to measure: the interval is open, [0, inf).
TEST(NoiseScaleWindow, OneUpdateLeavesTheIntervalOpen) {
  NoiseScaleWindow w;
  w.add(5.0, 1.0);
  const NoiseScaleEstimate e = estimate_noise_scale(w);
  EXPECT_DOUBLE_EQ(e.b_simple, 5.0);
  EXPECT_FALSE(e.resolved);
  EXPECT_EQ(e.b_low, 0.0);
  EXPECT_TRUE(std::isinf(e.b_high));
}

// Windows pool exactly: two windows added are the window of all their updates.
TEST(NoiseScaleWindow, PooledWindowsAreTheWindowOfAllTheirUpdates) {
  NoiseScaleWindow a, b, all;
  const std::vector<std::pair<double, double>> v{{1, 2}, {4, 1}, {-2, 3}, {7, 0.5}, {3, 2}};
  for (size_t i = 0; i < v.size(); ++i) {
    (i < 2 ? a : b).add(v[i].first, v[i].second);
    all.add(v[i].first, v[i].second);
  }
  a.add(b);
  const NoiseScaleEstimate pooled = estimate_noise_scale(a);
  const NoiseScaleEstimate whole = estimate_noise_scale(all);
  EXPECT_EQ(pooled.batches, 5);
  EXPECT_DOUBLE_EQ(pooled.trace, whole.trace);
  EXPECT_DOUBLE_EQ(pooled.grad_sq_se, whole.grad_sq_se);
}

// What a log point stores (updates, means, standard errors) gives the window back, so logged
// windows pool as the updates themselves would.
TEST(NoiseScaleWindow, AWindowComesBackFromItsLoggedMeansAndErrors) {
  NoiseScaleWindow w;
  for (const auto& [t, g] : std::vector<std::pair<double, double>>{{1, 2}, {4, 1}, {-2, 3}})
    w.add(t, g);
  const NoiseScaleEstimate e = estimate_noise_scale(w);
  const NoiseScaleWindow back = window_of_means(3, e.trace, e.trace_se, e.grad_sq, e.grad_sq_se);
  EXPECT_EQ(back.updates, 3);
  EXPECT_NEAR(back.trace, w.trace, 1e-12);
  EXPECT_NEAR(back.trace_sq, w.trace_sq, 1e-9);
  EXPECT_NEAR(back.grad_sq, w.grad_sq, 1e-12);
  EXPECT_NEAR(back.grad_sq_sq, w.grad_sq_sq, 1e-9);
  // One update: no standard error stored; its square is its value's.
  const NoiseScaleWindow one = window_of_means(1, 5.0, NAN, 2.0, NAN);
  EXPECT_DOUBLE_EQ(one.trace_sq, 25.0);
  EXPECT_DOUBLE_EQ(one.grad_sq_sq, 4.0);
}

// Simulated updates: per-token gradients with mean G and diagonal covariance Sigma; the small
// batch of 40-160 tokens and the rest of an update of 4 such batches drawn independently, the
// update's gradient their token-weighted mean -- what a trainer's accumulation computes.
struct Simulation : fathom::testing::KnownGradient {
  NoiseScaleWindow window(std::mt19937_64& rng, int updates) const {
    std::uniform_int_distribution<int> size(40, 160);
    std::normal_distribution<double> z;
    NoiseScaleWindow w;
    for (int u = 0; u < updates; ++u) {
      const double small = size(rng), rest = size(rng) + size(rng) + size(rng);
      double small_sq = 0, big_sq = 0;
      for (size_t i = 0; i < mean.size(); ++i) {
        const double g_small = mean[i] + sd[i] * z(rng) / std::sqrt(small);
        const double g_rest = mean[i] + sd[i] * z(rng) / std::sqrt(rest);
        const double g_big = (small * g_small + rest * g_rest) / (small + rest);
        small_sq += g_small * g_small;
        big_sq += g_big * g_big;
      }
      double trace = 0, grad_sq = 0;
      solve_two_batch(TwoBatchReading{small_sq, 1.0 / small, big_sq, small + rest}, trace, grad_sq);
      w.add(trace, grad_sq);
    }
    return w;
  }
};

TEST(NoiseScaleWindow, SimulatedUpdatesRecoverTheKnownNoiseScale) {
  const Simulation sim{fathom::testing::twenty_coordinates(0.3)};
  const double truth = sim.trace() / sim.grad_sq();  // 82.7 / 0.92: about 90 tokens
  std::mt19937_64 rng(5);
  const int windows = 400, updates = 50;
  double trace_sum = 0, trace_sq = 0, grad_sum = 0, grad_sq_sum = 0, se_sum = 0, grad_se_sum = 0;
  int covered = 0;
  for (int k = 0; k < windows; ++k) {
    const NoiseScaleEstimate e = estimate_noise_scale(sim.window(rng, updates));
    trace_sum += e.trace, trace_sq += e.trace * e.trace, se_sum += e.trace_se;
    grad_sum += e.grad_sq, grad_sq_sum += e.grad_sq * e.grad_sq, grad_se_sum += e.grad_sq_se;
    if (e.b_low <= truth && truth <= e.b_high) ++covered;
  }
  const double trace_mean = trace_sum / windows, grad_mean = grad_sum / windows;
  const double trace_sd = std::sqrt(trace_sq / windows - trace_mean * trace_mean);
  const double grad_sd = std::sqrt(grad_sq_sum / windows - grad_mean * grad_mean);
  // Unbiased: the means over windows within 3.5 of their standard errors of the truth.
  EXPECT_NEAR(trace_mean, sim.trace(), 3.5 * trace_sd / std::sqrt(windows));
  EXPECT_NEAR(grad_mean, sim.grad_sq(), 3.5 * grad_sd / std::sqrt(windows));
  // A window's standard errors are the spread of its means over windows.
  EXPECT_NEAR(se_sum / windows, trace_sd, 0.1 * trace_sd);
  EXPECT_NEAR(grad_se_sum / windows, grad_sd, 0.1 * grad_sd);
  EXPECT_GE(covered, 0.95 * windows) << "true B_simple " << truth;
}

}  // namespace test_noise_scale_window
