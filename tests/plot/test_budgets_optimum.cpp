// The best depth at a budget (plot/budgets_figure.h: LineOptimum): depths 2, 4, 8, 16, two seeds
// each, read at update 100. The vertex of the parabola through three equally spaced points in
// log2(depth) -- u = u1 + (y0 - y2) / (2 (y0 - 2 y1 + y2)) -- by hand; an optimum at the grid's
// end is said to be one, and one whose interval reaches the end is inconclusive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "db/store.h"
#include "experiments/value_at_budget.h"
#include "plot/budgets_figure.h"
#include "plot/line_optimum.h"
#include "tests/support/temp_dir.h"

namespace fathom::plot {
namespace test_budgets_optimum {

struct Method {
  std::string norm;
  std::vector<std::vector<double>> seeds;  // per depth 2, 4, 8, 16: the two seeds' losses
};

const std::vector<int> kDepths = {2, 4, 8, 16};

void write_sweep(const std::string& path, const std::vector<Method>& methods) {
  auto store = db::Store::open(path);
  for (const Method& m : methods)
    for (size_t d = 0; d < kDepths.size(); ++d)
      for (size_t seed = 0; seed < 2; ++seed) {
        db::NewRun n;
        n.name = "d/" + m.norm + std::to_string(kDepths[d]) + "-" + std::to_string(seed);
        n.sweep = "d";
        const int64_t id = store.create_run(n);
        store.set_tag(id, "axis.model.layers", std::to_string(kDepths[d]));
        store.set_tag(id, "axis.model.norm", m.norm);
        store.set_tag(id, "axis.train.seed", std::to_string(seed + 1));
        const double loss = m.seeds[d][seed];
        store.write_metrics(id, {db::MetricRow(100, "valid_loss", loss, 0.0)});
        store.set_final_metric(id, "valid_loss", loss);
        store.finish_run(id, "finished");
      }
}

double hand_vertex_depth(double y0, double y1, double y2, double u1) {
  return std::exp2(u1 + (y0 - y2) / (2 * (y0 - 2 * y1 + y2)));
}

BudgetsFigure figure_of(const std::vector<Method>& methods, fathom::testing::TempDir& scratch) {
  write_sweep(scratch.file("runs.db"), methods);
  const auto store = db::Store::open(scratch.file("runs.db"), db::OpenMode::ReadOnly);
  BudgetsQuery q;
  q.sweep = "d";
  q.x = "model.layers";
  q.rows = "model.norm";
  q.budgets = {experiments::parse_budget("update=100", "test")};
  return budgets_figure(store, q);
}

const LineSeries* fit_of(const LineFigure& f, const std::string& line) {
  for (const auto& s : f.series)
    if (s.fit_of == line) return &s;
  return nullptr;
}

TEST(BudgetsOptimum, ABracketedOptimumIsTheParabolasVertexWithAnIntervalInsideTheGrid) {
  fathom::testing::TempDir scratch;
  // Means 2.0, 1.5, 1.6, 2.5; the seeds 0.01 either side.
  const BudgetsFigure made =
      figure_of({{"post", {{1.99, 2.01}, {1.49, 1.51}, {1.59, 1.61}, {2.49, 2.51}}}}, scratch);
  ASSERT_EQ(made.optima.size(), 1u);
  const experiments::AxisOptimum& o = made.optima[0];
  const double expected = hand_vertex_depth(2.0, 1.5, 1.6, 2);  // 2^(7/3), about 5.04
  EXPECT_EQ(o.points, 4);
  EXPECT_TRUE(o.best.bracketed);
  EXPECT_NEAR(o.best.x, expected, 1e-9);
  EXPECT_EQ(o.best.grid_x, 4);
  EXPECT_LT(o.best.ci_lo, expected);
  EXPECT_GT(o.best.ci_hi, expected);
  EXPECT_GT(o.best.ci_lo, 4);  // seeds 0.01 apart move it little
  EXPECT_LT(o.best.ci_hi, 8);
  EXPECT_FALSE(o.inconclusive());
  EXPECT_EQ(o.text().rfind("post: best layers 5.04 (95 % CI ", 0), 0u) << o.text();
  EXPECT_NE(o.text().find("the grid's best 4)"), std::string::npos) << o.text();
  // Its parabola, dashed in the line's colour, through the three points, lowest at the vertex.
  const LineSeries* fit = fit_of(made.figure, "post");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->x.front(), 2);
  EXPECT_EQ(fit->x.back(), 8);
  EXPECT_NEAR(fit->y.front(), 2.0, 1e-9);
  EXPECT_NEAR(fit->y.back(), 1.6, 1e-9);
  const size_t low =
      static_cast<size_t>(std::min_element(fit->y.begin(), fit->y.end()) - fit->y.begin());
  EXPECT_NEAR(fit->x[low], expected, (8.0 - 2.0) / 48);
  EXPECT_EQ(fit->name.rfind("best 5.04 (95 % CI ", 0), 0u) << fit->name;
  EXPECT_TRUE(made.figure.x.whole_numbers);  // the parabola's x values do not count
}

TEST(BudgetsOptimum, AnOptimumAtTheGridsEndOrOneWithAWideIntervalIsNotClaimed) {
  fathom::testing::TempDir scratch;
  const BudgetsFigure made = figure_of(
      {// Deeper is better throughout: the lowest mean at 16.
       {"pre", {{1.99, 2.01}, {1.79, 1.81}, {1.59, 1.61}, {1.39, 1.41}}},
       // Means 2.0, 1.5, 1.52, 2.5 but seeds 1.6 apart at depth 2: a draw of its low seed twice
       // (1 in 4) against draws of 4 and 8 no lower than their means (3 in 4 each) is lowest
       // at depth 2 -- 14 % of the draws, past the interval's 2.5 %.
       {"peri", {{1.2, 2.8}, {1.0, 2.0}, {1.02, 2.02}, {2.49, 2.51}}}},
      scratch);
  ASSERT_EQ(made.optima.size(), 2u);
  const experiments::AxisOptimum& edge = made.optima[0];
  EXPECT_FALSE(edge.best.bracketed);
  EXPECT_EQ(edge.best.grid_x, 16);
  EXPECT_TRUE(std::isnan(edge.best.ci_lo));
  EXPECT_EQ(edge.text(),
            "pre: best at the grid's end, layers 16: the optimum may lie beyond it (extend the "
            "grid to bracket it)");
  EXPECT_EQ(fit_of(made.figure, "pre"), nullptr);

  const experiments::AxisOptimum& wide = made.optima[1];
  EXPECT_TRUE(wide.best.bracketed);
  EXPECT_NEAR(wide.best.x, hand_vertex_depth(2.0, 1.5, 1.52, 2), 1e-9);
  EXPECT_DOUBLE_EQ(wide.best.ci_lo, 2);
  EXPECT_TRUE(wide.inconclusive());
  EXPECT_NE(wide.text().find("reaches the grid's end: inconclusive whether the optimum lies "
                             "inside 2-16"),
            std::string::npos)
      << wide.text();
  const LineSeries* fit = fit_of(made.figure, "peri");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->name, "best 5.51?");
}

// Fewer than three depths with a value at the budget: no optimum said.
TEST(BudgetsOptimum, TwoDepthsHaveNoOptimum) {
  LineSeries s;
  s.name = "post";
  s.x = {2, 4, 8};
  s.y = {2.0, std::nan(""), 1.5};
  const experiments::AxisOptimum o =
      experiments::axis_optimum(s.name, "layers", s.x, {{2.0}, {}, {1.5}});
  EXPECT_EQ(o.points, 2);
  EXPECT_EQ(o.text(), "post: no optimum: 2 points with a value (3 needed)");
}

}  // namespace test_budgets_optimum
}  // namespace fathom::plot
