// fit_x_tick_count (plot/render.h): a dashboard-sized chart asks for no more x ticks than
// their labels fit side by side; a wide one keeps QCustomPlot's default.
#include <gtest/gtest.h>

#include <QFontMetrics>

#include <qcustomplot.h>

#include "plot/headless.h"
#include "plot/render.h"

namespace fathom::plot {
namespace test_tick_fit {

// The narrowest gap, in pixels, between two neighbouring tick labels' edges.
double narrowest_label_gap(const QCustomPlot& plot) {
  const QVector<double> ticks = plot.xAxis->tickVector();
  const QVector<QString> labels = plot.xAxis->tickVectorLabels();
  const QFontMetrics metrics(plot.xAxis->tickLabelFont());
  double gap = 1e9;
  for (int i = 1; i < ticks.size(); ++i) {
    const double centres =
        plot.xAxis->coordToPixel(ticks[i]) - plot.xAxis->coordToPixel(ticks[i - 1]);
    gap = std::min(gap, centres - (metrics.horizontalAdvance(labels[i]) +
                                   metrics.horizontalAdvance(labels[i - 1])) /
                                      2.0);
  }
  return gap;
}

TEST(TickFit, ANarrowChartsLabelsKeepApartAndAWideOneKeepsTheDefault) {
  ensure_application(/*force_offscreen=*/true);
  QCustomPlot narrow;
  narrow.setViewport(QRect(0, 0, 240, 200));  // hidden: no resize event sets it
  // Updates 25..400: range / 5 = 75 rounds to a step of 50, 8 labels the default gives.
  narrow.xAxis->setRange(25, 400);
  narrow.yAxis->setRange(0.00001, 0.00025);  // wide y labels leave a narrow axis rect
  narrow.replot();
  const int by_default = narrow.xAxis->tickVector().size();
  ASSERT_EQ(by_default, 8);
  const double default_gap = narrowest_label_gap(narrow);
  EXPECT_TRUE(fit_x_tick_count(narrow));
  narrow.replot();
  EXPECT_FALSE(fit_x_tick_count(narrow));  // settled: no replot asked for again
  EXPECT_LT(narrow.xAxis->tickVector().size(), by_default);
  EXPECT_GE(narrow.xAxis->tickVector().size(), 2);
  const QFontMetrics metrics(narrow.xAxis->tickLabelFont());
  EXPECT_LT(default_gap, metrics.horizontalAdvance(QStringLiteral("M")));  // they crowded
  EXPECT_GE(narrowest_label_gap(narrow), metrics.horizontalAdvance(QStringLiteral("M")));

  QCustomPlot wide;
  wide.setViewport(QRect(0, 0, 1200, 400));
  wide.xAxis->setRange(25, 400);
  wide.replot();
  EXPECT_FALSE(fit_x_tick_count(wide));
  wide.replot();
  EXPECT_EQ(wide.xAxis->tickVector().size(), by_default);
}

}  // namespace test_tick_fit
}  // namespace fathom::plot
