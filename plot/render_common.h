#pragma once
// Pieces the renderers share (not part of the public API).
#include <QString>
#include <string>

#include "plot/figure.h"
#include "plot/style.h"

namespace fathom::plot::detail {

inline QString qstr(const std::string& s) { return QString::fromStdString(s); }

// Empties the plot and gives it one styled axis rect (plot.xAxis/yAxis point at it), a hidden
// legend inside its top right corner and, when `title` is not empty, a title row above it.
QCPAxisRect* reset_plot(QCustomPlot& plot, const std::string& title, const Style& style);

// reset_plot for an x-y figure: both axes (and their mirrors) on the figure's scales, styled
// with a grid.
QCPAxisRect* reset_xy_plot(QCustomPlot& plot, const std::string& title, const Axis& x,
                           const Axis& y, const Style& style);

// Linear or log scale; a log axis gets powers-of-ten ticks, or 1-2-5 style ones over a narrow
// range (log_ticker.h).
void apply_scale(QCPAxis* axis, Scale scale);
// Sets the figure's explicit min/max over whatever range the axis has.
void apply_limits(QCPAxis* axis, const Axis& spec);
// The most of a figure's width a legend beside the plot takes: the data keep 70 % or more
// (issue 58 item 7).
inline constexpr double kBesideShare = 0.3;
// Shows the legend when it has entries; many entries wrap into two columns. Inside, at the
// corner that hides (next to) no data; where every corner would, outside: beside the plot when
// it fits in kBesideShare of the width, else in a row above at most a third of the height;
// where no font step fits that, no legend, and a grey line above the plot names the count.
void finish_legend(QCustomPlot& plot);
// The share of the axis rect's height the legend will take inside it, as finish_legend
// estimates it from the widget's size (0 without entries); a renderer leaves that much room
// above its data where the legend must hide none of it (bars' whisker tops).
double legend_height_share(QCustomPlot& plot);
// The top a bar chart leaves above its highest value (bar or whisker) with no legend to clear:
// a tenth of the span from `bottom` on a linear axis, a factor of 2 on a log one. One rule for
// the chart's set-up (setup_bar_figure) and its later fit (fit_legend_headroom).
double bar_top_without_legend(double highest, double bottom, bool log);

}  // namespace fathom::plot::detail
