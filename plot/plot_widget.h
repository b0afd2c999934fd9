#pragma once
// The QCustomPlot every figure and view makes, and how to empty one. QCustomPlot takes its
// plottables down one at a time (clearPlottables, its destructor); each removal looks for the
// plottable's entry among all of the legend's and, when found, re-flows the whole legend: cubic
// in the entries (issue 54: 373 s to export 4,000 runs' curves, 425 s for the desktop app to
// close on 5,200). Emptying the legend first, in one sweep, makes it linear; taking the
// plottables down from the front, not the back, spares a scan of each of its lists per one.
#include <qcustomplot.h>

namespace fathom::plot {

// Deletes every element of the plot's legend in one sweep; the plottables stay, in no legend.
void clear_legend(QCustomPlot& plot);
// clear_legend, then every plottable: how a view empties its plot before drawing anew.
void clear_plottables(QCustomPlot& plot);

// While alive, the plottables made on `plot` get a legend entry only if `entries` (QCustomPlot
// gives each one by default): thousands of curves in a legend not shown paid for an entry each,
// its insertion growing with the legend. The plot's own setting comes back after.
class LegendEntriesWhileAlive {
 public:
  LegendEntriesWhileAlive(QCustomPlot& plot, bool entries)
      : plot_(plot), before_(plot.autoAddPlottableToLegend()) {
    plot.setAutoAddPlottableToLegend(entries);
  }
  ~LegendEntriesWhileAlive() { plot_.setAutoAddPlottableToLegend(before_); }
  LegendEntriesWhileAlive(const LegendEntriesWhileAlive&) = delete;
  LegendEntriesWhileAlive& operator=(const LegendEntriesWhileAlive&) = delete;

 private:
  QCustomPlot& plot_;
  bool before_;
};

// A QCustomPlot that empties itself (clear_plottables) before QCustomPlot's destructor would
// take its plottables down: the type of every plot Fathom makes, on screen or for export.
class PlotWidget : public QCustomPlot {
 public:
  explicit PlotWidget(QWidget* parent = nullptr) : QCustomPlot(parent) {}
  ~PlotWidget() override;
};

}  // namespace fathom::plot
