#include "plot/plot_widget.h"

namespace fathom::plot {

void clear_legend(QCustomPlot& plot) {
  // QCPLayout::clear deletes each cell's element without re-flowing the rest (QCPLegend's own
  // clearItems re-flows after each), then simplifies the grid once.
  if (plot.legend) plot.legend->clear();
}

void clear_plottables(QCustomPlot& plot) {
  clear_legend(plot);
  plot.clearPlottables();
}

PlotWidget::~PlotWidget() { clear_legend(*this); }

}  // namespace fathom::plot
