// The exponent of the best depth against the budget (experiments/optimum_scaling.h): the slope
// of ln x* on ln C over the budgets whose optimum is bracketed, each x* the vertex of the
// parabola in ln x through the best mean and its neighbours. By hand, with depths 2, 4, 8 (equal
// steps h = ln 2) and means 2 + (1 + 2d) / 2, 2, 2 + (1 - 2d) / 2, the vertex is at
// ln 4 + h (y0 - y2) / (2 (y0 - 2 y1 + y2)) = ln 4 + d ln 2.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "experiments/optimum_scaling.h"

namespace fathom::experiments {
namespace test_optimum_scaling {

const std::vector<double> kDepths = {2, 4, 8};

// A cell of runs id0, id0 + 1, ... with these values.
TableCell runs_cell(int64_t id0, const std::vector<double>& values) {
  TableCell c;
  double sum = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    sum += values[k];
    c.values.push_back(values[k]);
    c.value_runs.push_back(id0 + static_cast<int64_t>(k));
  }
  c.value = sum / static_cast<double>(values.size());
  return c;
}

// Budget 10^(10 + k): the vertex at ln 4 + d_k ln 2, three runs per depth (the same ids at
// every budget) spread by `spread` around each mean.
BudgetLine line_at(int k, double d, double spread, double sign = 1) {
  BudgetLine b;
  b.budget = std::pow(10.0, 10 + k);
  b.xs = kDepths;
  const double means[3] = {2 + (1 + 2 * d) / 2, 2, 2 + (1 - 2 * d) / 2};
  for (int i = 0; i < 3; ++i) {
    std::vector<double> v;
    for (int s = -1; s <= 1; ++s) v.push_back(sign * (means[i] + s * spread));
    b.cells.push_back(runs_cell(100 * (i + 1), v));
  }
  return b;
}

TEST(OptimumScaling, TheSlopeOfTheLogOptimumOnTheLogBudget) {
  // d = -0.3, -0.1, 0.1, 0.3 over four decades: ln x* rises 0.2 ln 2 per ln 10.
  std::vector<BudgetLine> at;
  for (int k = 0; k < 4; ++k) at.push_back(line_at(k, -0.3 + 0.2 * k, 0.05));
  const OptimumScaling s = optimum_scaling("post", "layers", "compute", at, false);
  const double expected = 0.2 * std::log(2.0) / std::log(10.0);  // 0.0602
  EXPECT_EQ(s.budgets, 4);
  EXPECT_NEAR(s.exponent, expected, 1e-9);
  EXPECT_LT(s.ci_lo, expected);
  EXPECT_GT(s.ci_hi, expected);
  EXPECT_GT(s.ci_lo, 0);
  EXPECT_FALSE(s.inconclusive());
  EXPECT_NE(s.text().find("post: best layers grows as compute^0.0602 (95 % CI "), std::string::npos)
      << s.text();
  EXPECT_NE(s.text().find("; 4 budgets, 1e+10-1e+13)"), std::string::npos) << s.text();

  // A BLEU-like metric, the same numbers negated: the best is the highest, the same exponent.
  std::vector<BudgetLine> up;
  for (int k = 0; k < 4; ++k) up.push_back(line_at(k, -0.3 + 0.2 * k, 0.05, -1));
  EXPECT_NEAR(optimum_scaling("post", "layers", "compute", up, true).exponent, expected, 1e-9);
}

// The same runs at every budget, each run off its mean by the same amount at each (a seed that
// is better at one budget is better at all), the loss falling by 0.1 a budget: every draw
// resamples the runs once for all budgets, so each draw's optima are equal and its exponent is
// 0 -- an interval of one point. Drawn per budget independently they would scatter.
TEST(OptimumScaling, OneDrawReadsTheSameRunsAtEveryBudget) {
  std::vector<BudgetLine> at;
  for (int k = 0; k < 3; ++k) {
    BudgetLine b;
    b.budget = std::pow(10.0, 10 + k);
    b.xs = kDepths;
    const double means[3] = {2.6, 2.0, 2.3};
    // Offsets of irrational size: no draw's three means lie exactly on a line, where the
    // vertex would turn on rounding.
    for (int i = 0; i < 3; ++i) {
      std::vector<double> v;
      for (int r = 0; r < 3; ++r)
        v.push_back(means[i] - 0.1 * k + 0.3 * std::sin(1.7 * r + 2.3 * i));
      b.cells.push_back(runs_cell(100 * (i + 1), v));
    }
    at.push_back(b);
  }
  const OptimumScaling s = optimum_scaling("pre", "layers", "compute", at, false);
  EXPECT_EQ(s.budgets, 3);
  EXPECT_NEAR(s.exponent, 0, 1e-12);
  EXPECT_NEAR(s.ci_lo, 0, 1e-12);
  EXPECT_NEAR(s.ci_hi, 0, 1e-12);
}

// An enumerable interval. Depths e^-1, 1, e at budgets e^0, e^1, e^2; the runs at the first and
// middle depth agree everywhere (1.5625, 0.0625); the deepest's two runs read 0.5625 and 1.5625
// at the first budget and 1.0625 both at the others. So only the first budget's optimum moves:
// a draw's mean m there is 0.5625, 1.0625 or 1.5625 (a quarter, a half, a quarter), moved from
// 1.0625 by sqrt(2) times its distance (two runs), and with y0 = 1.5625, y1 = 0.0625 the vertex
// is -0.5 + 1.5 / (m' + 1.4375) (tests/base/test_lr_transfer.cpp): 0.1 at m' = 1.0625, the
// other budgets' too. The slope over ln C = 0, 1, 2 is (y_2 - y_0) / 2 = (0.1 - vertex_0) / 2:
// 0, and the ends -- the expanded tail at three degrees of freedom (two runs a depth, one each),
// 0.07 %, inside each extreme quarter -- at the extreme vertices.
TEST(OptimumScaling, TheIntervalOfAnEnumerableCase) {
  std::vector<BudgetLine> at;
  for (int k = 0; k < 3; ++k) {
    BudgetLine b;
    b.budget = std::exp(static_cast<double>(k));
    b.xs = {std::exp(-1.0), 1.0, std::exp(1.0)};
    b.cells = {runs_cell(100, {1.5625, 1.5625}), runs_cell(200, {0.0625, 0.0625}),
               k == 0 ? runs_cell(300, {0.5625, 1.5625}) : runs_cell(300, {1.0625, 1.0625})};
    at.push_back(b);
  }
  const OptimumScaling s = optimum_scaling("pre", "layers", "compute", at, false);
  EXPECT_EQ(s.budgets, 3);
  EXPECT_NEAR(s.exponent, 0, 1e-12);
  EXPECT_DOUBLE_EQ(s.interval_df, 3.0);
  const double half_root2 = std::sqrt(2.0) / 2;
  EXPECT_NEAR(s.ci_lo, (0.1 - (-0.5 + 1.5 / (2.5 - half_root2))) / 2, 1e-12);
  EXPECT_NEAR(s.ci_hi, (0.1 - (-0.5 + 1.5 / (2.5 + half_root2))) / 2, 1e-12);
  EXPECT_TRUE(s.inconclusive());
}

// Fewer than three budgets bracket the optimum: no exponent. A budget whose best is the grid's
// end (the deepest) is no point of the fit.
TEST(OptimumScaling, NoExponentFromFewerThanThreeBracketedBudgets) {
  std::vector<BudgetLine> at = {line_at(0, -0.2, 0.05), line_at(1, 0.2, 0.05)};
  BudgetLine deepest_best;
  deepest_best.budget = 1e12;
  deepest_best.xs = kDepths;
  deepest_best.cells = {runs_cell(100, {3.0, 3.1}), runs_cell(200, {2.5, 2.6}),
                        runs_cell(300, {2.0, 2.1})};
  at.push_back(deepest_best);
  const OptimumScaling s = optimum_scaling("post", "layers", "compute", at, false);
  EXPECT_EQ(s.budgets, 2);
  EXPECT_EQ(s.budgets_asked, 3);
  EXPECT_TRUE(std::isnan(s.exponent));
  EXPECT_EQ(s.text(), "post: no exponent: 2 of 3 budgets bracket the best layers (3 needed)");
}

// Runs whose values scatter more than the optimum moves: the interval holds 0, and the text says
// the data cannot decide whether the best depth grows or shrinks.
TEST(OptimumScaling, AnIntervalHoldingZeroIsInconclusive) {
  std::vector<BudgetLine> at;
  for (int k = 0; k < 4; ++k) {
    BudgetLine b = line_at(k, 0.02 * (k % 2 ? 1 : -1), 0);
    // Each run off by its own amount at each budget, up to 0.4: larger than the gaps between the
    // means (0.5) allow a steady optimum.
    for (size_t i = 0; i < b.cells.size(); ++i)
      for (size_t r = 0; r < b.cells[i].values.size(); ++r)
        b.cells[i].values[r] += 0.4 * std::sin(7.0 * double(r) + 3.0 * k + 11.0 * double(i));
    at.push_back(b);
  }
  const OptimumScaling s = optimum_scaling("post", "layers", "compute", at, false);
  ASSERT_EQ(s.budgets, 4);
  EXPECT_LT(s.ci_lo, 0);
  EXPECT_GT(s.ci_hi, 0);
  EXPECT_TRUE(s.inconclusive());
  EXPECT_NE(s.text().find("holds 0: inconclusive whether it grows or shrinks with compute"),
            std::string::npos)
      << s.text();
}

}  // namespace test_optimum_scaling
}  // namespace fathom::experiments
