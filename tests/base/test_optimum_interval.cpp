// The interval of where a curve over seeds is lowest (experiments/optimum_interval.h): worked by
// hand on three points, and on five checked against its definition -- the x where the local
// parabola's slope is within t_{0.975, df} standard errors of zero -- with the slope taken
// from the Lagrange form of the parabola, not the Newton form the code uses.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "experiments/grid_optimum.h"
#include "experiments/optimum_interval.h"

namespace test_optimum_interval {
using namespace fathom;

constexpr double kT3 = 3.182446305284263;  // t_{0.975} at 3 degrees of freedom (tables)
constexpr double kT6 = 2.446911848791681;  // at 6

// x = -1, 0, 1, two seeds a point: means 1.5625, 0.0625, 1.0625. By hand d1 = -1.5, c = 1.25:
// the parabola's slope is -1.5 + 1.25 (2x + 1) = 2.5 x - 0.25 (vertex 0.1), whose weights on the
// three means are a + b x = (x - 1/2, -2x, x + 1/2). The third point's seeds {1.0, 1.125} are
// the only spread: pooled variance s2 = 2 (1/16)^2 / 3 over 3 degrees of freedom, and
// Var(2.5 x - 0.25) = s2 / 2 * sum (a + b x)^2 = s2 (1/4 + 3 x^2). The ends solve
// (2.5 x - 0.25)^2 = t^2 s2 (1/4 + 3 x^2).
TEST(OptimumInterval, ThreePointsByHand) {
  const std::vector<double> ln_x{-1, 0, 1};
  const double s2 = 2 * (0.0625 * 0.0625) / 3;
  const double qa = 6.25 - kT3 * kT3 * 3 * s2, qb = -1.25, qc = 0.0625 - kT3 * kT3 * s2 / 4;
  const double root = std::sqrt(qb * qb - 4 * qa * qc);
  const auto ci =
      experiments::optimum_interval(ln_x, {{1.5625, 1.5625}, {0.0625, 0.0625}, {1.0, 1.125}});
  EXPECT_NEAR(ci.lo, (-qb - root) / (2 * qa), 1e-9);  // 0.0667
  EXPECT_NEAR(ci.hi, (-qb + root) / (2 * qa), 1e-9);  // 0.1359
  EXPECT_DOUBLE_EQ(ci.df, 3.0);
  EXPECT_LT(ci.lo, 0.1);
  EXPECT_GT(ci.hi, 0.1);

  // Seeds {0.5625, 1.5625} at the third point (s2 = 1/6): the upper root, 1.29, lies beyond
  // the grid, so the interval reaches its end -- the seeds cannot place the optimum there.
  const double wide_qa = 6.25 - kT3 * kT3 / 2, wide_qc = 0.0625 - kT3 * kT3 / 24;
  const auto wide =
      experiments::optimum_interval(ln_x, {{1.5625, 1.5625}, {0.0625, 0.0625}, {0.5625, 1.5625}});
  EXPECT_NEAR(wide.lo, (1.25 - std::sqrt(1.5625 - 4 * wide_qa * wide_qc)) / (2 * wide_qa), 1e-9);
  EXPECT_DOUBLE_EQ(wide.hi, 1.0);

  // No spread: the vertex alone (its slope is exactly zero). One seed each: no interval.
  const auto exact =
      experiments::optimum_interval(ln_x, {{1.5625, 1.5625}, {0.0625, 0.0625}, {0.5625, 0.5625}});
  EXPECT_NEAR(exact.lo, 0.25, 1e-12);
  EXPECT_NEAR(exact.hi, 0.25, 1e-12);
  EXPECT_TRUE(std::isnan(experiments::optimum_interval(ln_x, {{1.5}, {0.1}, {0.5}}).lo));
}

// The slope at x of the parabola through the three grid points around x (the nearest and its
// neighbours), over its standard error: Lagrange's basis derivatives as the weights.
double slope_t(const std::vector<double>& ln_x, const std::vector<std::vector<double>>& values,
               double x) {
  size_t k = 1;
  for (size_t j = 1; j + 1 < ln_x.size(); ++j)
    if (std::fabs(ln_x[j] - x) < std::fabs(ln_x[k] - x)) k = j;
  double slope = 0, weights = 0, squares = 0, df = 0;
  for (size_t j = k - 1; j <= k + 1; ++j) {
    double derivative_weight = 0, denominator = 1;
    std::vector<double> others;
    for (size_t o = k - 1; o <= k + 1; ++o)
      if (o != j) others.push_back(ln_x[o]), denominator *= ln_x[j] - ln_x[o];
    derivative_weight = (2 * x - others[0] - others[1]) / denominator;
    double mean = 0;
    for (double v : values[j]) mean += v / static_cast<double>(values[j].size());
    for (double v : values[j]) squares += (v - mean) * (v - mean);
    df += static_cast<double>(values[j].size()) - 1;
    slope += derivative_weight * mean;
    weights += derivative_weight * derivative_weight / static_cast<double>(values[j].size());
  }
  return slope / std::sqrt(squares / df * weights);
}

// Five points of 2 + 0.05 (x - 2.3)^2 with three seeds each: the interval's inner ends are where
// the local slope's |t| is t_{0.975, 6}; every x outside it is rejected, and the fitted vertex
// is inside.
TEST(OptimumInterval, ItsEndsAreWhereTheSlopeIsJustSignificant) {
  const std::vector<double> ln_x{0, 1, 2, 3, 4};
  const double offsets[5][3] = {{-0.02, 0.01, 0.01},
                                {0.015, -0.03, 0.015},
                                {0.01, 0.01, -0.02},
                                {-0.01, 0.02, -0.01},
                                {0.0, 0.02, -0.02}};
  std::vector<std::vector<double>> values(5);
  for (size_t i = 0; i < 5; ++i)
    for (double o : offsets[i]) values[i].push_back(2 + 0.05 * std::pow(ln_x[i] - 2.3, 2) + o);
  const auto ci = experiments::optimum_interval(ln_x, values);
  ASSERT_FALSE(std::isnan(ci.lo));
  EXPECT_GT(ci.lo, 0);  // inside the grid: both ends are roots
  EXPECT_LT(ci.hi, 4);
  EXPECT_NEAR(std::fabs(slope_t(ln_x, values, ci.lo)), kT6, 1e-6);
  EXPECT_NEAR(std::fabs(slope_t(ln_x, values, ci.hi)), kT6, 1e-6);
  for (double x = 0; x <= 4; x += 0.01)
    if (x < ci.lo - 1e-6 || x > ci.hi + 1e-6) EXPECT_GT(std::fabs(slope_t(ln_x, values, x)), kT6);
  const auto best = experiments::grid_optimum(
      {1, std::exp(1.0), std::exp(2.0), std::exp(3.0), std::exp(4.0)}, values, 10, 1);
  EXPECT_LT(ci.lo, std::log(best.x));
  EXPECT_GT(ci.hi, std::log(best.x));
  EXPECT_NEAR(std::log(best.ci_lo), ci.lo, 1e-9);
  EXPECT_NEAR(std::log(best.ci_hi), ci.hi, 1e-9);
}

// A curve that dips at x = 2 (the parabola through x = 1, 2, 3: vertex 1.9) and climbs steeply to a
// plateau of diverged runs (each at its loss at initialization, 5.0, within a little noise) at x =
// 4, 5: the plateau's parabola is flat near x = 4.7 -- its slope within noise of zero there -- but
// the curve climbs significantly between it and the optimum, so the interval is the stretch around
// the optimum alone.
TEST(OptimumInterval, APlateauOfDivergedRunsIsNoOptimum) {
  const std::vector<double> ln_x{0, 1, 2, 3, 4, 5};
  const double means[6] = {3.0, 2.2, 2.0, 2.3, 5.0, 5.0};
  std::vector<std::vector<double>> values(6);
  for (size_t i = 0; i < 6; ++i) values[i] = {means[i] - 0.02, means[i], means[i] + 0.02};
  double flat = 0;  // the plateau's least |t|: within noise of zero
  for (double x = 4.5; x <= 5; x += 0.01)
    if (std::fabs(slope_t(ln_x, values, x)) < kT6) flat = x;
  ASSERT_GT(flat, 4.5);
  bool climbs = false;  // significantly, somewhere between the optimum and the plateau
  for (double x = 2.5; x <= 4.5; x += 0.01) climbs |= slope_t(ln_x, values, x) > kT6;
  ASSERT_TRUE(climbs);
  const auto ci = experiments::optimum_interval(ln_x, values);
  EXPECT_LT(ci.lo, 1.9);
  EXPECT_GT(ci.hi, 1.9);
  EXPECT_LT(ci.hi, 3.0);
  for (double x = ci.lo; x <= ci.hi; x += 0.001)
    EXPECT_LE(std::fabs(slope_t(ln_x, values, x)), kT6 + 1e-6) << x;
}

}  // namespace test_optimum_interval
