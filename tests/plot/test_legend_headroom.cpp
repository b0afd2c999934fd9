// fit_legend_headroom (plot/render.h): a bar chart set up at one size and laid out at another --
// the Compare tab's chart in its splitter -- had its legend over the tallest whisker's top
// (laid out shorter) or an axis twice as tall as its bars (laid out taller); measured after
// layout, the y axis's top becomes the least that keeps that top below the legend.
#include <gtest/gtest.h>

#include <cmath>

#include <qcustomplot.h>

#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/style.h"

namespace fathom::plot {
namespace test_legend_headroom {

// The Compare tab's chart of the lm-depth-2025 store: three inits at two depths, 95 % CIs;
// the tallest whisker (deepnorm, 24 layers) ends at 161.78 + 60 = 221.78.
BarFigure three_inits() {
  BarFigure f;
  f.groups = {"12", "24"};
  f.series = {{"init = xavier", {118.85, 137.11}, {12.0, 17.0}},
              {"init = admin", {137.26, 142.07}, {31.0, 32.0}},
              {"init = deepnorm", {151.71, 161.78}, {55.0, 60.0}}};
  f.x_label = "decoder_layers";
  f.y.label = "valid_ppl";
  f.errors_are = "95 % CI of the mean over the cell's runs";
  return f;
}

// The value at the legend's lower edge: a whisker ending above it is hidden behind it.
double value_at_legend_bottom(const QCustomPlot& plot) {
  return plot.yAxis->pixelToCoord(plot.legend->outerRect().bottom());
}

TEST(LegendHeadroom, AChartLaidOutShorterThanItsSetUpMakesRoomAgain) {
  ensure_application(/*force_offscreen=*/true);
  const double tallest = 161.78 + 60.0;
  QCustomPlot plot;
  plot.setViewport(QRect(0, 0, 1080, 480));  // hidden: no resize event sets it
  setup_plot(plot, three_inits());
  plot.replot();
  EXPECT_GE(value_at_legend_bottom(plot), tallest);  // at the set-up's size: room enough
  if (fit_legend_headroom(plot)) plot.replot();      // the estimate, made exact
  EXPECT_GE(value_at_legend_bottom(plot), tallest);
  EXPECT_FALSE(fit_legend_headroom(plot));

  plot.setViewport(QRect(0, 0, 1080, 250));  // the splitter's share of a 700-px window
  plot.replot();
  ASSERT_LT(value_at_legend_bottom(plot), tallest);  // the legend covers the whisker's top
  EXPECT_TRUE(fit_legend_headroom(plot));
  plot.replot();
  EXPECT_GE(value_at_legend_bottom(plot), tallest);
  EXPECT_FALSE(fit_legend_headroom(plot));  // settled: no replot asked for again
  EXPECT_DOUBLE_EQ(plot.yAxis->range().lower, 0.0);
}

// Set up while the widget was short (the estimate reserves most of the height for the legend)
// and shown taller: the axis went to twice its tallest whisker. The fit gives the room back:
// the whisker's top ends just under the legend, or 10 % below the axis's top where the legend
// leaves more room than that.
TEST(LegendHeadroom, AChartLaidOutTallerThanItsSetUpGivesBackTheRoom) {
  ensure_application(/*force_offscreen=*/true);
  const double tallest = 161.78 + 60.0;
  QCustomPlot plot;
  plot.setViewport(QRect(0, 0, 1080, 160));
  setup_plot(plot, three_inits());
  plot.setViewport(QRect(0, 0, 1080, 600));
  plot.replot();
  const double before = plot.yAxis->range().upper;
  ASSERT_GT(before, 1.3 * tallest);  // the waste this test is about (plain: 1.1)
  EXPECT_TRUE(fit_legend_headroom(plot));
  plot.replot();
  EXPECT_FALSE(fit_legend_headroom(plot));  // settled
  const double top = plot.yAxis->range().upper;
  EXPECT_LT(top, before);
  EXPECT_GE(value_at_legend_bottom(plot), tallest);  // still not hidden
  const double gap_px =
      plot.yAxis->coordToPixel(tallest) - plot.legend->outerRect().bottom();  // pixels down
  const bool under_the_legend = gap_px <= 4 * px_per_pt() + 1;
  const bool plain_room = std::abs(top - 1.1 * tallest) < 1e-9 * tallest;
  EXPECT_TRUE(under_the_legend || plain_room) << "top " << top << ", gap " << gap_px << " px";
  EXPECT_DOUBLE_EQ(plot.yAxis->range().lower, 0.0);
}

TEST(LegendHeadroom, NothingToDoWithoutALegendOrWithItBelow) {
  ensure_application(/*force_offscreen=*/true);
  QCustomPlot plot;
  plot.setViewport(QRect(0, 0, 600, 200));
  BarFigure f = three_inits();
  f.errors_are.clear();
  for (auto& s : f.series) s.name.clear();  // no entries: no legend
  setup_plot(plot, f);
  plot.replot();
  const QCPRange before = plot.yAxis->range();
  EXPECT_FALSE(fit_legend_headroom(plot));
  EXPECT_EQ(plot.yAxis->range(), before);
}

// Every bar below 0 (a linearization's BLEU change against its control, say): the bars grow
// from 0, so the axis holds 0 and the plain tenth above it; the old top, 1.1 x the highest
// value, was -2.2 here and cut every bar off at its base.
TEST(LegendHeadroom, NegativeBarsKeepTheirBaseInRange) {
  ensure_application(/*force_offscreen=*/true);
  QCustomPlot plot;
  plot.setViewport(QRect(0, 0, 600, 300));
  BarFigure f;
  f.groups = {"dec.5", "dec.6"};
  f.series = {{"", {-2.0, -11.0}, {}}};
  setup_plot(plot, f);
  EXPECT_DOUBLE_EQ(plot.yAxis->range().lower, -12.1);         // 1.1 x the lowest bar
  EXPECT_NEAR(plot.yAxis->range().upper, 0.1 * 12.1, 1e-12);  // 0 + a tenth of the span
}

}  // namespace test_legend_headroom
}  // namespace fathom::plot
