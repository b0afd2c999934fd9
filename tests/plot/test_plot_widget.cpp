// plot/plot_widget.h: emptying a plot's legend in one sweep before its plottables go, on
// clear_plottables and when a PlotWidget is destroyed (issue 54: QCustomPlot removing entries one
// by one re-flows the legend each time, cubic in the entries). Checked here by what is left: no
// entry survives, none dangles, the plottables are all deleted and the legend works again.
#include <gtest/gtest.h>

#include <QPointer>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include <qcustomplot.h>

#include "plot/figure.h"
#include "plot/headless.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::plot {
namespace test_plot_widget {

// What a plot holds, watched from outside: each is null once deleted.
struct Watched {
  std::vector<QPointer<QCPAbstractPlottable>> plottables;
  std::vector<QPointer<QCPAbstractLegendItem>> entries;
};

Watched watch(QCustomPlot& plot) {
  Watched w;
  for (int i = 0; i < plot.plottableCount(); ++i) w.plottables.emplace_back(plot.plottable(i));
  if (plot.legend)
    for (int i = 0; i < plot.legend->itemCount(); ++i) w.entries.emplace_back(plot.legend->item(i));
  return w;
}

template <typename T>
int alive(const std::vector<QPointer<T>>& pointers) {
  int n = 0;
  for (const auto& p : pointers) n += !p.isNull();
  return n;
}

// `n` graphs, each with its legend entry (QCustomPlot adds one per plottable by default).
void add_graphs(QCustomPlot& plot, int n) {
  for (int i = 0; i < n; ++i) {
    QCPGraph* g = plot.addGraph();
    g->setName(QString::number(i));
    g->setData({0.0, 1.0}, {double(i), double(i + 1)});
  }
}

// A curves figure with `n` runs, drawn as `fathom export plot curves` draws it (its legend
// shown, wrapped into columns).
CurveFigure many_runs(int n) {
  CurveFigure f;
  for (int i = 0; i < n; ++i) {
    Curve c;
    c.label = "run " + std::to_string(i) + " train_loss";
    c.metric = "train_loss";
    c.step = {0, 1, 2};
    c.value = {3.0, 2.0 + i * 1e-3, 1.0};
    f.curves.push_back(c);
  }
  f.y.label = "train_loss";
  return f;
}

TEST(PlotWidget, ClearLegendDeletesEveryEntryAndKeepsThePlottables) {
  ensure_application(/*force_offscreen=*/true);
  PlotWidget plot;
  add_graphs(plot, 300);
  const Watched before = watch(plot);
  ASSERT_EQ(alive(before.entries), 300);

  clear_legend(plot);
  EXPECT_EQ(plot.legend->itemCount(), 0);
  EXPECT_EQ(plot.legend->elementCount(), 0);  // no empty cells left in the grid either
  EXPECT_EQ(alive(before.entries), 0);        // deleted, not just taken out of the grid
  EXPECT_EQ(plot.plottableCount(), 300);
  EXPECT_EQ(alive(before.plottables), 300);
  for (int i = 0; i < plot.graphCount(); ++i)
    EXPECT_FALSE(plot.legend->hasItemWithPlottable(plot.graph(i)));

  // The legend works on: a graph added back gets one entry.
  EXPECT_TRUE(plot.graph(7)->addToLegend());
  ASSERT_EQ(plot.legend->itemCount(), 1);
  EXPECT_TRUE(plot.legend->hasItemWithPlottable(plot.graph(7)));
}

TEST(PlotWidget, ClearPlottablesLeavesNothingBehindAndTheNextDrawingHasItsOwnEntries) {
  ensure_application(/*force_offscreen=*/true);
  PlotWidget plot;
  add_graphs(plot, 500);
  const Watched first = watch(plot);

  clear_plottables(plot);
  EXPECT_EQ(plot.plottableCount(), 0);
  EXPECT_EQ(plot.graphCount(), 0);
  EXPECT_EQ(plot.legend->itemCount(), 0);
  EXPECT_EQ(alive(first.plottables), 0);
  EXPECT_EQ(alive(first.entries), 0);

  add_graphs(plot, 20);
  EXPECT_EQ(plot.legend->itemCount(), 20);
  for (int i = 0; i < plot.graphCount(); ++i)
    EXPECT_TRUE(plot.legend->hasItemWithPlottable(plot.graph(i)));
}

TEST(PlotWidget, DestroyedWithThousandsOfEntriesItLeavesNoneDangling) {
  ensure_application(/*force_offscreen=*/true);
  // A child of a window, as every view's plot is: deleted by its parent, as at the app's exit.
  auto window = std::make_unique<QWidget>();
  auto* plot = new PlotWidget(window.get());
  plot->resize(1080, 720);
  setup_plot(*plot, many_runs(2000));
  ASSERT_GE(plot->legend->itemCount(), 2000);
  // Too many to fit anywhere: left out of sight (render_common.h), its entries kept.
  ASSERT_FALSE(plot->legend->visible());
  const Watched w = watch(*plot);
  QPointer<QCPLegend> legend = plot->legend;
  QPointer<PlotWidget> widget = plot;

  window.reset();  // seconds to minutes one entry at a time (issue 54); milliseconds here
  EXPECT_TRUE(widget.isNull());
  EXPECT_TRUE(legend.isNull());
  EXPECT_EQ(alive(w.plottables), 0);
  EXPECT_EQ(alive(w.entries), 0);
}

TEST(PlotWidget, SetUpAgainAfterManyCurvesTheLegendListsOnlyTheNewOnes) {
  ensure_application(/*force_offscreen=*/true);
  PlotWidget plot;
  plot.resize(1080, 720);
  setup_plot(plot, many_runs(1500));
  const Watched first = watch(plot);
  setup_plot(plot, many_runs(3));  // reset_plot empties the plot through clear_plottables
  EXPECT_EQ(alive(first.plottables), 0);
  EXPECT_EQ(alive(first.entries), 0);
  EXPECT_EQ(plot.legend->itemCount(), 3);
}

}  // namespace test_plot_widget
}  // namespace fathom::plot
