// An axis of counts (plot/whole_number_ticker.h) ticks at whole numbers only: the Analyses
// tab's Lanczos-step axis once read 2.5, 7.5, 12.5 at 1100x700, a short run's update axis
// 0.5, 1, 1.5. QCustomPlot's own step set (1, 2, 2.5, 5 x 10^k) is the expectation: below 1
// becomes 1, 2.5 becomes 2, the rest stay.
#include <gtest/gtest.h>

#include <cmath>

#include <qcustomplot.h>

#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/render.h"
#include "plot/whole_number_ticker.h"

namespace fathom::plot {
namespace test_whole_number_ticks {

bool all_whole(const QVector<double>& values) {
  for (double v : values)
    if (std::abs(v - std::round(v)) > 1e-9) return false;
  return true;
}

TEST(WholeNumberTicks, TheStepIsQCustomPlotsMadeWhole) {
  EXPECT_EQ(detail::whole_tick_step(0.2), 1);
  EXPECT_EQ(detail::whole_tick_step(0.5), 1);
  EXPECT_EQ(detail::whole_tick_step(1), 1);
  EXPECT_EQ(detail::whole_tick_step(2), 2);
  EXPECT_EQ(detail::whole_tick_step(2.5), 2);
  EXPECT_EQ(detail::whole_tick_step(5), 5);
  EXPECT_EQ(detail::whole_tick_step(25), 25);
  EXPECT_EQ(detail::whole_tick_step(2500), 2500);
  // Subticks split a step into whole parts, never more than QCustomPlot asked for.
  EXPECT_EQ(detail::whole_subtick_count(1, 4), 0);
  EXPECT_EQ(detail::whole_subtick_count(2, 3), 1);   // at the odd numbers
  EXPECT_EQ(detail::whole_subtick_count(5, 4), 4);   // every number
  EXPECT_EQ(detail::whole_subtick_count(10, 4), 4);  // every other number
  EXPECT_EQ(detail::whole_subtick_count(20, 3), 3);
}

// A Ritz-value figure of 17 Lanczos steps at dashboard sizes, and a 4-update probe's lines:
// every tick and subtick whole; the plain linear axis beside it shows what it replaces.
TEST(WholeNumberTicks, CountAxesOfShortSeriesTickOnlyAtWholeNumbers) {
  ensure_application(/*force_offscreen=*/true);
  LineFigure figure;
  figure.x.whole_numbers = true;
  LineSeries steps;
  for (int i = 1; i <= 17; ++i) {
    steps.x.push_back(i);
    steps.y.push_back(100.0 - 50.0 / i);
  }
  figure.series = {steps};
  for (const QRect size : {QRect(0, 0, 520, 300), QRect(0, 0, 1100, 700), QRect(0, 0, 240, 200)}) {
    QCustomPlot plot;
    plot.setViewport(size);
    setup_plot(plot, figure);
    plot.replot();
    ASSERT_GE(plot.xAxis->tickVector().size(), 2) << size.width();
    EXPECT_TRUE(all_whole(plot.xAxis->tickVector())) << size.width();
    QVector<double> ticks, subticks;
    plot.xAxis->ticker()->generate(plot.xAxis->range(), QLocale::c(), 'g', 6, ticks, &subticks,
                                   nullptr);
    EXPECT_TRUE(all_whole(subticks)) << size.width();
  }
  LineFigure probe = figure;
  probe.series[0].x = {1, 2, 3, 4};
  probe.series[0].y = {1, 2, 3, 4};
  QCustomPlot whole, plain;
  for (QCustomPlot* p : {&whole, &plain}) {
    p->setViewport(QRect(0, 0, 1100, 700));
    setup_plot(*p, probe);
  }
  LineFigure plain_probe = probe;
  plain_probe.x.whole_numbers = false;
  setup_plot(plain, plain_probe);
  whole.replot();
  plain.replot();
  EXPECT_FALSE(all_whole(plain.xAxis->tickVector()));  // QCustomPlot's own: 0.5 apart
  EXPECT_TRUE(all_whole(whole.xAxis->tickVector()));
  EXPECT_GE(whole.xAxis->tickVector().size(), 4);  // 1, 2, 3, 4 at least
}

TEST(WholeNumberTicks, TheFlagSurvivesJson) {
  LineFigure figure;
  figure.x.whole_numbers = true;
  figure.series = {LineSeries{"s", {1, 2}, {3, 4}, ""}};
  const auto back = std::get<LineFigure>(figure_from_json(to_json(Figure{figure})));
  EXPECT_TRUE(back.x.whole_numbers);
  EXPECT_FALSE(back.y.whole_numbers);
}

}  // namespace test_whole_number_ticks
}  // namespace fathom::plot
