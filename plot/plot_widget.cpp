#include "plot/plot_widget.h"

namespace fathom::plot {

void clear_legend(QCustomPlot& plot) {
  // QCPLayout::clear deletes each cell's element without re-flowing the rest (QCPLegend's own
  // clearItems re-flows after each), then simplifies the grid once.
  if (plot.legend) plot.legend->clear();
}

void clear_plottables(QCustomPlot& plot) {
  clear_legend(plot);
  // From the front: QCustomPlot looks each one up in its lists (the plot's, its graphs', its
  // layer's) from their start, so its own clearPlottables, from the back, scans all of each
  // list for each one -- 207 ms for 16,384 curves against 40 ms this way.
  while (plot.plottableCount() > 0) plot.removePlottable(0);
}

PlotWidget::~PlotWidget() { clear_plottables(*this); }

}  // namespace fathom::plot
