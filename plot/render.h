#pragma once
// Renderers: each sets up a QCustomPlot to show one figure kind. The GUI calls them on the
// widget it embeds and then replot()s; export (save.h) calls them on an offscreen widget.
// Each one first clears the plot (plottables, items, layout), so a plot can be set up again.
#include <optional>
#include <vector>

#include "plot/figure.h"
#include "plot/style.h"

class QCustomPlot;
class QCPGraph;

namespace fathom::plot {

void setup_plot(QCustomPlot& plot, const Figure& figure, const Style& style = {});

void setup_heatmap(QCustomPlot& plot, const Heatmap& figure, const Style& style = {});
void setup_line_figure(QCustomPlot& plot, const LineFigure& figure, const Style& style = {});
void setup_bar_figure(QCustomPlot& plot, const BarFigure& figure, const Style& style = {});
void setup_curve_figure(QCustomPlot& plot, const CurveFigure& figure, const Style& style = {});

// For a caller that smooths and decimates itself, incrementally (the GUI's live charts): per
// curve of the figure, in order, the points to draw. The figure's curves then need no points.
struct PreparedCurve {
  std::vector<double> raw_x, raw_y;  // the faint raw curve (with smoothing); empty: none drawn
  std::vector<double> x, y;          // the (smoothed) curve
  double diverged_y = 0;             // where the divergence marker goes; NaN: no marker
  std::vector<double> lo_x, lo_y, hi_x, hi_y;  // a group's (smoothed) band edges; empty: none
};
// The graphs drawn for one curve, so the caller can replace their data later (null: none).
struct CurveGraphs {
  QCPGraph* raw = nullptr;
  QCPGraph* line = nullptr;
  QCPGraph* mark = nullptr;
  QCPGraph* band_lo = nullptr;  // a group's band: the fill lies between the two
  QCPGraph* band_hi = nullptr;
};
std::vector<CurveGraphs> setup_curve_figure(QCustomPlot& plot, const CurveFigure& figure,
                                            const Style& style,
                                            const std::vector<PreparedCurve>& prepared);

// Asks a linear x axis for no more ticks than its labels fit side by side at the axis rect's
// laid-out width: QCustomPlot's ~5 "readable" steps can mean 8 labels running together on a
// dashboard-sized chart. Call after a replot (the layout is done then); true when the count
// changed and the plot needs another replot. Does nothing before the first layout.
bool fit_x_tick_count(QCustomPlot& plot);
// A curve figure's axes fitted to its curves with air around them, so no marker at an extreme
// point is cut in half by the frame (issue 58 item 9): 2.5 % of the range each side of a
// linear axis, the same share of the decades each side of a log one (centred on the geometric
// mean; 3 % on a log x axis, a grid of learning rates each marked); an axis with a min or max
// of the figure's own gets none. A linear y axis of one value spans 10 % of it each side (not
// QCustomPlot's old width about it, which put a first BLEU of 1.1 on an axis from -1.4).
void fit_curve_axes(QCustomPlot& plot, const Axis& x, const Axis& y);
// After fit_curve_axes: a fitted x axis stretched to a figure's budget line where every curve
// ends before it (or starts after it) -- the line is what says they fall short.
void fit_budget_line(QCustomPlot& plot, const std::optional<BudgetLine>& budget, const Axis& x);

// Sets the top of the y axis to the least that keeps the highest value of any plottable (a
// bar, a whisker's end) below a legend inset in a top corner, measured on the laid-out plot,
// and no less than a bar chart's room without a legend. The set-up reserves that room from the
// widget's size before layout: too little where a splitter then makes the chart shorter (a
// Compare-tab chart at 1100 x 700 hid its tallest whisker's top), too much where the widget was
// smaller at set-up than when shown (the same chart's axis went to twice its tallest bar).
// Call after a replot; true when the range changed and the plot needs another replot.
bool fit_legend_headroom(QCustomPlot& plot);

}  // namespace fathom::plot
