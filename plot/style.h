#pragma once
// Publication style: serif fonts at 8 pt, and series that stay apart in grey-scale print --
// each style index varies colour (Okabe-Ito, colour-blind safe), dash pattern and marker together.
// Heatmaps use a viridis-like gradient, whose luminance rises monotonically, so grey keeps order.
#include <cstddef>
#include <numeric>

#include <QColor>
#include <QFont>
#include <QPen>
#include <QStringList>

#include <qcustomplot.h>

namespace fathom::plot {

struct Style {
  double font_pt = 8;             // tick labels, legend, axis labels
  double title_pt = 9;            // figure title
  double line_width_pt = 1.0;     // data lines; fits and grids are thinner
  double marker_pt = 4;           // marker size
  int decimation_buckets = 2000;  // long curves are decimated to at most ~4x this many points
  bool markers = true;            // false: lines without markers (see lines_marked)
  bool legend = true;             // false: entries kept (named graphs), never shown or placed
  QStringList font_families{"Times New Roman", "Times", "Nimbus Roman", "Liberation Serif",
                            "DejaVu Serif"};
};

QFont figure_font(const Style& style, double pt);

// Style index i: cycles through 20 colours, 5 dash patterns and 7 markers, so two series differ
// in dash or marker even where their colours print as the same grey; (colour, dash) repeats
// only after 100 series.
inline constexpr int kSeriesColours = 20;
inline constexpr int kSeriesMarkers = 7;
// Markers tell lines apart only while each (colour, marker) pair is on one line: past
// lcm(20, 7) = 140 lines every pair repeats, and thousands of lines' markers hide the lines
// (at 4,000 runs they were half of the dashboard's repaint). A figure of more lines draws
// none; so does a legend of more entries, and the charts it serves.
inline constexpr size_t kMarkedLines = std::lcm(kSeriesColours, kSeriesMarkers);
inline bool lines_marked(size_t lines) { return lines <= kMarkedLines; }
QColor series_colour(int i);
Qt::PenStyle series_dash(int i);
QCPScatterStyle::ScatterShape series_marker(int i);
QPen series_pen(int colour_index, int dash_index, const Style& style);
QCPScatterStyle series_scatter(int colour_index, int marker_index, const Style& style);

// t in [0, 1] along the viridis-like gradient (dark purple -> yellow).
QColor gradient_colour(double t);
// The same gradient for colour maps; NaN cells are transparent (they show the background).
QCPColorGradient heatmap_gradient();

// Logical pixels per point: the plot is laid out at the screen's logical DPI (see save.cpp).
double px_per_pt();

// Fonts, pens and grid of one axis; `grid` shows the major grid in light grey.
void style_axis(QCPAxis* axis, const Style& style, bool grid);
void style_legend(QCPLegend* legend, const Style& style);

}  // namespace fathom::plot
