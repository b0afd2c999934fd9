// The best value of a numeric axis from a table's rows (experiments/axis_optimum.h): columns in
// any order taken by value, a higher-is-better metric's optimum at its highest point, a column
// without a value left out. The vertex by hand: three equally spaced points in log2(x),
// u = u1 + (y0 - y2) / (2 (y0 - 2 y1 + y2)).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "experiments/axis_optimum.h"

namespace fathom::experiments {
namespace test_axis_optimum {

TableCell cell(std::vector<double> values) {
  TableCell c;
  if (values.empty()) return c;
  double sum = 0;
  for (double v : values) sum += v;
  c.value = sum / static_cast<double>(values.size());
  c.values = std::move(values);
  return c;
}

TEST(AxisOptimum, EachRowsBestOverTheColumnsTakenByValue) {
  ComparisonTable t;
  t.col_labels = {"8", "2", "4", "16"};  // as a sweep file may list them
  t.row_labels = {"bleu-like", "gap"};
  // BLEU 24, 20, 25 at 8, 2, 4 (and none at 16): the highest at 4, between 2 and 8.
  t.cells = {{cell({23.9, 24.1}), cell({19.9, 20.1}), cell({24.9, 25.1}), cell({})},
             {cell({1.0, 1.2}), cell({}), cell({2.0, 2.2}), cell({})}};
  const std::vector<AxisOptimum> optima = row_optima(t, "layers", /*higher_is_better=*/true);
  ASSERT_EQ(optima.size(), 2u);
  const AxisOptimum& bleu = optima[0];
  EXPECT_EQ(bleu.points, 3);
  EXPECT_EQ(bleu.grid_lo, 2);
  EXPECT_EQ(bleu.grid_hi, 8);
  EXPECT_TRUE(bleu.best.bracketed);
  EXPECT_EQ(bleu.best.grid_x, 4);
  EXPECT_NEAR(bleu.best.x, std::exp2(2 + (20.0 - 24.0) / (2 * (20.0 - 50.0 + 24.0))), 1e-9);
  EXPECT_EQ(bleu.text().rfind("bleu-like: best layers 5.04 (95 % CI ", 0), 0u) << bleu.text();
  EXPECT_EQ(optima[1].points, 2);
  EXPECT_EQ(optima[1].text(), "gap: no optimum: 2 points with a value (3 needed)");
}

TEST(AxisOptimum, ColumnsThatAreNotNumbersHaveNone) {
  ComparisonTable t;
  t.col_labels = {"post", "pre", "peri"};
  t.row_labels = {"x"};
  t.cells = {{cell({1}), cell({2}), cell({3})}};
  EXPECT_TRUE(numeric_columns(t).empty());
  EXPECT_TRUE(row_optima(t, "norm", false).empty());
}

// One seed somewhere: the vertex, but no interval (nothing to resample).
TEST(AxisOptimum, OneSeedGivesTheVertexWithoutAnInterval) {
  const AxisOptimum o = axis_optimum("m", "layers", {2, 4, 8}, {{2.0}, {1.5, 1.5}, {1.6, 1.6}});
  EXPECT_TRUE(o.best.bracketed);
  EXPECT_TRUE(std::isnan(o.best.ci_lo));
  EXPECT_FALSE(o.inconclusive());
  EXPECT_EQ(o.text(),
            "m: best layers 5.04 (the grid's best 4; a value with one seed: no interval)");
}

}  // namespace test_axis_optimum
}  // namespace fathom::experiments
