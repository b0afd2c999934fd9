// Least squares with the smallest weighted norm (base/metrics/least_squares.h) and the grid
// completion built on it (experiments/grid_completion.h), against answers worked by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "base/metrics/least_squares.h"
#include "experiments/grid_completion.h"

namespace test_least_squares {
using fathom::min_norm_least_squares;
using fathom::experiments::complete_grid;
using fathom::experiments::Setting;

// Points on y = 1 + 2x: the fit is exact whatever the weights.
TEST(LeastSquares, AnOverdeterminedConsistentSystemIsSolvedExactly) {
  const auto beta = min_norm_least_squares({{1, 0}, {1, 1}, {1, 2}, {1, 5}}, {1, 3, 5, 11}, {1, 1});
  EXPECT_NEAR(beta[0], 1, 1e-9);
  EXPECT_NEAR(beta[1], 2, 1e-9);
  // Inconsistent: y = 0, 0, 3 at x = 0, 1, 2: slope 1.5, intercept -0.5 (the normal equations).
  const auto fit = min_norm_least_squares({{1, 0}, {1, 1}, {1, 2}}, {0, 0, 3}, {1, 1});
  EXPECT_NEAR(fit[0], -0.5, 1e-9);
  EXPECT_NEAR(fit[1], 1.5, 1e-9);
}

// One equation x1 + x2 = 2: the solution of least x1^2 + x2^2 is (1, 1); of least
// x1^2 + 4 x2^2 (Lagrange: x1 = 4 x2) it is (8/5, 2/5).
TEST(LeastSquares, WhatTheDataLeaveFreeTakesTheLeastWeightedNorm) {
  const auto even = min_norm_least_squares({{1, 1}}, {2}, {1, 1});
  EXPECT_NEAR(even[0], 1, 1e-9);
  EXPECT_NEAR(even[1], 1, 1e-9);
  const auto weighted = min_norm_least_squares({{1, 1}}, {2}, {1, 4});
  EXPECT_NEAR(weighted[0], 1.6, 1e-9);
  EXPECT_NEAR(weighted[1], 0.4, 1e-9);
  EXPECT_THROW(min_norm_least_squares({{1, 1}}, {2, 3}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(min_norm_least_squares({{1, 1}}, {2}, {1, 0}), std::invalid_argument);
}

// A 3 x 3 grid m(a, b) = r_a + c_b missing one setting: the data fit without interactions, so
// the smallest interactions are none and the prediction is r_a + c_b.
TEST(GridCompletion, AnAdditiveGridIsFilledWithItsAdditiveValue) {
  const double r[3] = {0, 1, 5}, c[3] = {2, -1, 0.5};
  std::map<Setting, double> observed;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (!(a == 2 && b == 1)) observed[{a, b}] = r[a] + c[b];
  const auto done = complete_grid({3, 3}, observed, {{2, 1}});
  EXPECT_NEAR(done.filled.at({2, 1}), r[2] + c[1], 1e-8);
  EXPECT_NEAR(done.r_squared, 1, 1e-12);
  EXPECT_EQ(fathom::experiments::second_order_parameters({3, 3}), 1 + 2 + 2 + 4);
  EXPECT_EQ(fathom::experiments::second_order_parameters({2, 2, 2}), 7);
}

// A 2 x 2 x 2 grid made of main effects and one pairwise interaction, missing a setting: the
// model holds the truth, so the fit to the other seven recovers it and predicts the eighth.
TEST(GridCompletion, ASecondOrderTruthIsRecoveredFromTheOtherSettings) {
  const auto truth = [](int a, int b, int c) {
    return 3 + (a ? 1.0 : -1.0) + (b ? -0.5 : 0.5) + 0.2 * c + (a == b ? 0.7 : -0.7);
  };
  std::map<Setting, double> observed;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c)
        if (!(a == 1 && b == 1 && c == 1)) observed[{a, b, c}] = truth(a, b, c);
  const auto done = complete_grid({2, 2, 2}, observed, {{1, 1, 1}});
  EXPECT_NEAR(done.filled.at({1, 1, 1}), truth(1, 1, 1), 1e-8);
}

}  // namespace test_least_squares
