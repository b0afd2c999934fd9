// The parallel-coordinates plot (plot/parallel_coordinates.h): which axes are numeric, log or
// categorical, where each run's values sit on them (hand-computed positions), and the drawing:
// one line per run, diverged runs red and dashed, a missing value breaking the line.
#include <gtest/gtest.h>

#include <cmath>

#include <qcustomplot.h>

#include "plot/headless.h"
#include "plot/parallel_coordinates.h"
#include "plot/style.h"

namespace fathom::plot {
namespace test_parallel_coordinates {

ParallelFigure four_runs() {
  // norm (words), lr (1e-4..1e-2: two decades, log), layers (6..18: linear), valid_ppl (run 4
  // diverged: none).
  return parallel_figure({"model.norm", "train.lr", "model.encoder_layers", "valid_ppl"},
                         {"#1", "#2", "#3", "#4"},
                         {{"pre", "0.0001", "6", "3"},
                          {"post", "0.001", "12", "5"},
                          {"pre", "0.01", "18", "4"},
                          {"post", "0.01", "18", ""}},
                         {false, false, false, true});
}

TEST(ParallelCoordinates, AxesAreWordsLinearOrLogAsTheirValuesAre) {
  const ParallelFigure f = four_runs();
  ASSERT_EQ(f.axes.size(), 4u);
  EXPECT_FALSE(f.axes[0].numeric);
  EXPECT_EQ(f.axes[0].categories, (std::vector<std::string>{"post", "pre"}));
  EXPECT_TRUE(f.axes[1].numeric);
  EXPECT_TRUE(f.axes[1].log);  // 0.0001 to 0.01: two decades
  EXPECT_TRUE(f.axes[2].numeric);
  EXPECT_FALSE(f.axes[2].log);  // 6 to 18: less than a decade
  EXPECT_FALSE(f.axes[3].log);
  EXPECT_DOUBLE_EQ(f.axes[3].min, 3);
  EXPECT_DOUBLE_EQ(f.axes[3].max, 5);
}

TEST(ParallelCoordinates, PositionsAreHandComputed) {
  const ParallelFigure f = four_runs();
  // norm: post at 0, pre at 1.
  EXPECT_DOUBLE_EQ(axis_position(f.axes[0], f.lines[0].values[0]), 1.0);
  EXPECT_DOUBLE_EQ(axis_position(f.axes[0], f.lines[1].values[0]), 0.0);
  // lr on a log axis: 0.001 is halfway between 0.0001 and 0.01.
  EXPECT_NEAR(axis_position(f.axes[1], f.lines[1].values[1]), 0.5, 1e-12);
  // layers: 12 is halfway between 6 and 18 (linear).
  EXPECT_DOUBLE_EQ(axis_position(f.axes[2], f.lines[1].values[2]), 0.5);
  // valid_ppl 4 of 3..5: 0.5; the diverged run has none.
  EXPECT_DOUBLE_EQ(axis_position(f.axes[3], f.lines[2].values[3]), 0.5);
  EXPECT_TRUE(std::isnan(axis_position(f.axes[3], f.lines[3].values[3])));
  EXPECT_TRUE(f.lines[3].diverged);
  // One value only: the middle.
  const ParallelFigure one = parallel_figure({"x"}, {"#1"}, {{"7"}}, {false});
  EXPECT_DOUBLE_EQ(axis_position(one.axes[0], 7), 0.5);
}

TEST(ParallelCoordinates, OneLinePerRunDivergedRedAndDashed) {
  ensure_application(/*force_offscreen=*/true);
  QCustomPlot plot;
  plot.resize(600, 300);
  setup_parallel_coordinates(plot, four_runs(), Style{});
  ASSERT_EQ(plot.plottableCount(), 4);
  auto* diverged = qobject_cast<QCPCurve*>(plot.plottable(3));
  ASSERT_TRUE(diverged);
  EXPECT_EQ(diverged->pen().style(), Qt::DashLine);
  EXPECT_EQ(diverged->pen().color(), QColor(200, 40, 40));
  // Its line stops before the metric axis: the last point is NaN.
  EXPECT_TRUE(std::isnan((diverged->data()->constEnd() - 1)->value));
  // The best run (lowest ppl: #1) is darkest: the colour runs with the metric.
  auto* best = qobject_cast<QCPCurve*>(plot.plottable(0));
  auto* worst = qobject_cast<QCPCurve*>(plot.plottable(1));
  EXPECT_LT(best->pen().color().lightness(), worst->pen().color().lightness());
}

// Between the values written under the stems and the axes' names nothing is drawn: the x axis's
// ticks, of length 0, each painted a dot there (seen in the app's screenshot).
TEST(ParallelCoordinates, NothingIsDrawnBetweenTheValuesUnderTheStemsAndTheNames) {
  ensure_application(/*force_offscreen=*/true);
  QCustomPlot plot;
  plot.resize(600, 500);
  setup_parallel_coordinates(plot, four_runs(), Style{});
  plot.replot();  // the items' pixel positions
  const QImage image = plot.toPixmap(600, 500, 1.0).toImage();
  double under_values = plot.yAxis->coordToPixel(0);
  for (int i = 0; i < plot.itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
      under_values = std::max(under_values, text->bottom->pixelPosition().y());
  // To just below the axis rect, where the x axis (no base line) lies; its names start lower.
  const int from = static_cast<int>(std::ceil(under_values)) + 1;
  const int to = plot.xAxis->axisRect()->bottom() + 4;
  ASSERT_LT(from, to);
  for (int a = 0; a < 4; ++a) {
    const int x = static_cast<int>(std::lround(plot.xAxis->coordToPixel(a)));
    for (int y = from; y < to; ++y)
      for (int dx = -1; dx <= 1; ++dx)
        EXPECT_GT(image.pixelColor(x + dx, y).lightness(), 200)
            << "axis " << a << " at (" << x + dx << ", " << y << ")";
  }
}

// A figure that keeps the drawn one's axes and lines, with runs added anywhere by id, extends
// it: its lines are put in the drawn order, the new ones last. A changed line, a missing one,
// or an axis that moved does not.
TEST(ParallelCoordinates, AFigureExtendsTheDrawnOneWhereItsAxesAndLinesStand) {
  auto numbered = [](ParallelFigure f) {
    for (size_t i = 0; i < f.lines.size(); ++i) f.lines[i].run_id = static_cast<int64_t>(10 + i);
    return f;
  };
  ParallelFigure drawn = numbered(four_runs());
  drawn.lines.erase(drawn.lines.begin() + 1);  // runs 10, 12, 13 drawn; 11 finishes later
  ParallelFigure now = numbered(four_runs());  // 10, 11, 12, 13: the same axes
  ASSERT_TRUE(parallel_extends(drawn, &now));
  std::vector<int64_t> order;
  for (const auto& line : now.lines) order.push_back(line.run_id);
  EXPECT_EQ(order, (std::vector<int64_t>{10, 12, 13, 11}));

  ParallelFigure changed = numbered(four_runs());
  changed.lines[2].values[1] = 0.002;
  EXPECT_FALSE(parallel_extends(drawn, &changed));
  ParallelFigure missing = numbered(four_runs());
  missing.lines.erase(missing.lines.begin());
  EXPECT_FALSE(parallel_extends(drawn, &missing));
  ParallelFigure moved = numbered(four_runs());
  moved.axes[3].max = 6;  // a new highest valid_ppl: every line's colour and place change
  EXPECT_FALSE(parallel_extends(drawn, &moved));
}

}  // namespace test_parallel_coordinates
}  // namespace fathom::plot
