// The best depth against the budget (plot/scaling_figure.h): a row's bracketed optima as points
// on log-log axes, and its power law x* = k C^a drawn between the fit's first and last budget;
// a row without a bracketed optimum draws nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "plot/scaling_figure.h"

namespace fathom::plot {
namespace test_scaling_figure {

TEST(ScalingFigure, PointsAndTheirPowerLawOnLogLogAxes) {
  experiments::OptimumScaling post;
  post.line = "post";
  post.axis = "layers";
  post.budget_axis = "compute";
  post.fit_budgets = {1e10, 1e11, 1e12};
  post.fit_best = {3.0, 4.0, 5.5};
  post.budget_lo = 1e10;
  post.budget_hi = 1e12;
  post.exponent = 0.15;
  post.log_coefficient = std::log(0.1);  // x* = 0.1 C^0.15
  post.ci_lo = 0.1;
  post.ci_hi = 0.2;
  experiments::OptimumScaling pre = post;
  pre.line = "pre";
  pre.fit_budgets.clear();
  pre.fit_best.clear();
  pre.exponent = pre.log_coefficient = std::nan("");

  const LineFigure f = optimum_scaling_figure({post, pre});
  EXPECT_EQ(f.x.scale, Scale::Log);
  EXPECT_EQ(f.y.scale, Scale::Log);
  EXPECT_EQ(f.x.label, "compute (training FLOPs)");
  EXPECT_EQ(f.y.label, "best layers");
  ASSERT_EQ(f.series.size(), 2u);  // post's points and fit; pre has none
  EXPECT_EQ(f.series[0].name, "post");
  EXPECT_EQ(f.series[0].y, post.fit_best);
  const LineSeries& fit = f.series[1];
  EXPECT_EQ(fit.fit_of, "post");
  EXPECT_EQ(fit.name, "C^0.15 (95 % CI 0.1 to 0.2)");
  ASSERT_EQ(fit.x.size(), 2u);
  EXPECT_NEAR(fit.y[0], 0.1 * std::pow(1e10, 0.15), 1e-9);
  EXPECT_NEAR(fit.y[1], 0.1 * std::pow(1e12, 0.15), 1e-9);
}

}  // namespace test_scaling_figure
}  // namespace fathom::plot
