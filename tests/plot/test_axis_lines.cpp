// A comparison table drawn along its numeric axis (plot/axis_lines.h): a line per row over the
// columns taken by value, a one-column table's rows as one line, nothing for a categorical axis;
// depths ticked at whole numbers, a learning-rate grid on a log axis.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "plot/axis_lines.h"

namespace fathom::plot {
namespace test_axis_lines {

experiments::TableCell cell(double mean, double half_width) {
  experiments::TableCell c;
  c.value = mean;
  c.ci95 = half_width;
  c.values = {mean - 0.1, mean + 0.1};
  return c;
}

experiments::ComparisonTable grid(std::vector<std::string> cols) {
  experiments::ComparisonTable t;
  t.metric = "valid_loss";
  t.row_key = "model.norm";
  t.col_key = "model.layers";
  t.row_labels = {"post"};
  t.col_labels = std::move(cols);
  t.cells = {{}};
  const double means[] = {2.8, 2.0, 2.5, 3.0};
  for (size_t c = 0; c < t.col_labels.size(); ++c) t.cells[0].push_back(cell(means[c], 0.05));
  return t;
}

TEST(AxisLines, ALinePerRowOverTheColumnsByValue) {
  // Listed 8, 2, 4, 16 with means 2.8, 2.0, 2.5, 3.0: drawn 2, 4, 8, 16.
  const auto lines = axis_lines(grid({"8", "2", "4", "16"}));
  ASSERT_TRUE(lines);
  ASSERT_GE(lines->figure.series.size(), 1u);
  const LineSeries& post = lines->figure.series[0];
  EXPECT_EQ(post.name, "norm = post");
  EXPECT_EQ(post.x, (std::vector<double>{2, 4, 8, 16}));
  EXPECT_EQ(post.y, (std::vector<double>{2.0, 2.5, 2.8, 3.0}));
  EXPECT_EQ(post.err, (std::vector<double>{0.05, 0.05, 0.05, 0.05}));
  EXPECT_TRUE(lines->figure.x.whole_numbers);
  EXPECT_EQ(lines->figure.x.scale, Scale::Linear);
  EXPECT_EQ(lines->figure.x.label, "layers");
  ASSERT_EQ(lines->optima.size(), 1u);
  EXPECT_FALSE(lines->optima[0].best.bracketed);  // lowest at 2, the grid's end
}

TEST(AxisLines, ALearningRateGridIsDrawnOnALogAxis) {
  experiments::ComparisonTable t = grid({"0.0001", "0.001", "0.01"});
  t.col_key = "train.lr";
  const auto lines = axis_lines(t);
  ASSERT_TRUE(lines);
  EXPECT_EQ(lines->figure.x.scale, Scale::Log);
  EXPECT_FALSE(lines->figure.x.whole_numbers);
  // 2.8, 2.0, 2.5: bracketed at 1e-3, its parabola drawn after the line.
  ASSERT_EQ(lines->figure.series.size(), 2u);
  EXPECT_EQ(lines->figure.series[1].fit_of, "norm = post");
}

TEST(AxisLines, OneColumnOfDepthsIsOneLineAndACategoricalAxisNone) {
  experiments::ComparisonTable t;
  t.metric = "valid_loss";
  t.row_key = "model.layers";
  t.row_labels = {"2", "4", "8"};
  t.col_labels = {""};
  t.cells = {{cell(2.8, 0.1)}, {cell(2.0, 0.1)}, {cell(2.5, 0.1)}};
  const auto line = axis_lines(t);
  ASSERT_TRUE(line);
  EXPECT_EQ(line->figure.series[0].name, "valid_loss");
  EXPECT_EQ(line->figure.series[0].x, (std::vector<double>{2, 4, 8}));

  t.row_labels = {"post", "pre", "peri"};
  EXPECT_FALSE(axis_lines(t));
  // Two numbers are too few by default.
  EXPECT_FALSE(axis_lines(grid({"2", "4"})));
  EXPECT_TRUE(axis_lines(grid({"2", "4"}), 2));
}

}  // namespace test_axis_lines
}  // namespace fathom::plot
