#pragma once
// Renderers: each sets up a QCustomPlot to show one figure kind. The GUI calls them on the
// widget it embeds and then replot()s; export (save.h) calls them on an offscreen widget.
// Each one first clears the plot (plottables, items, layout), so a plot can be set up again.
#include "plot/figure.h"
#include "plot/style.h"

class QCustomPlot;

namespace fathom::plot {

void setup_plot(QCustomPlot& plot, const Figure& figure, const Style& style = {});

void setup_heatmap(QCustomPlot& plot, const Heatmap& figure, const Style& style = {});
void setup_line_figure(QCustomPlot& plot, const LineFigure& figure, const Style& style = {});
void setup_bar_figure(QCustomPlot& plot, const BarFigure& figure, const Style& style = {});
void setup_curve_figure(QCustomPlot& plot, const CurveFigure& figure, const Style& style = {});

}  // namespace fathom::plot
