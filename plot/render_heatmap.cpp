// Heatmap: one QCPColorMap cell per matrix entry, row 0 at the top, a gradient colour scale on
// the right. Masked and NaN cells are transparent, so they show the white background.
#include <algorithm>
#include <cmath>
#include <limits>

#include "plot/log_ticker.h"
#include "plot/render.h"
#include "plot/render_common.h"

namespace fathom::plot {
namespace {

using detail::qstr;

// Every cell's label while they fit (up to `max_labels`); beyond that every k-th, so that a
// 37-row beta matrix of an 18-layer stack stays readable at column width.
QSharedPointer<QCPAxisTickerText> label_ticker(const std::vector<std::string>& labels, size_t n,
                                               size_t max_labels = 16) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  const size_t every = n <= max_labels ? 1 : (n + max_labels - 1) / max_labels;
  for (size_t i = 0; i < n; i += every)
    ticker->addTick(static_cast<double>(i),
                    i < labels.size() ? qstr(labels[i]) : QString::number(i));
  return ticker;
}

bool shown(const Heatmap& h, size_t row, size_t col) {
  return !(h.lower_triangle && col > row) && !std::isnan(h.values[row][col]) &&
         !(h.log_colour && h.values[row][col] <= 0);
}

// The values the colours span: the shown cells' range, or what the heatmap asks for.
struct ColourRange {
  double lo, hi;
};

ColourRange colour_range(const Heatmap& h) {
  const size_t rows = h.values.size(), cols = rows ? h.values[0].size() : 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      if (shown(h, r, c) && std::isfinite(h.values[r][c])) {
        lo = std::min(lo, h.values[r][c]);
        hi = std::max(hi, h.values[r][c]);
      }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (h.vmin) lo = *h.vmin;
  if (h.vmax) hi = *h.vmax;
  if (hi <= lo) hi = h.log_colour ? lo * 10 : lo + 1;
  return {lo, hi};
}

// The colour scale at the right of the cells, as tall as they are.
void add_colour_scale(QCustomPlot& plot, QCPAxisRect* rect, QCPColorMap* map, const Heatmap& h,
                      const Style& style, ColourRange range) {
  const auto [lo, hi] = range;
  auto* scale = new QCPColorScale(&plot);
  const int row = plot.plotLayout()->rowCount() - 1;  // the axis rect's row (below any title)
  plot.plotLayout()->addElement(row, 1, scale);
  scale->setType(QCPAxis::atRight);
  scale->setBarWidth(static_cast<int>(std::lround(6 * px_per_pt())));
  map->setColorScale(scale);  // after setDataRange: the scale takes the map's range
  scale->setDataRange(QCPRange(lo, hi));
  scale->setGradient(heatmap_gradient());
  if (h.log_colour) {
    scale->setDataScaleType(QCPAxis::stLogarithmic);
    scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new detail::ReadableLogTicker));
  }
  style_axis(scale->axis(), style, false);
  scale->axis()->setLabel(qstr(h.colour_title));
  // The colour bar spans exactly the height of the cells.
  auto* group = new QCPMarginGroup(&plot);
  rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
}

// The cells' axes: their labels (every k-th where many), row 0 at the top.
void label_cell_axes(QCustomPlot& plot, const Heatmap& h, size_t rows, size_t cols) {
  for (QCPAxis* axis : {plot.xAxis2, plot.yAxis2}) axis->setTicks(false);
  size_t longest = 0;
  for (const auto& l : h.col_labels) longest = std::max(longest, l.size());
  if (longest > 3) plot.xAxis->setTickLabelRotation(-45);
  // Column labels side by side in about half the figure's width (the cells' share, less the
  // row labels and the colour scale): many columns (updates of a probe) get every k-th label.
  const QFontMetrics metrics(plot.xAxis->tickLabelFont());
  const int label_px =
      (longest > 3 ? metrics.height() : metrics.horizontalAdvance(QString(int(longest), '0'))) +
      metrics.horizontalAdvance(QStringLiteral("00"));
  const size_t fit = static_cast<size_t>(std::max(2, plot.width() / 2 / std::max(label_px, 1)));
  plot.xAxis->setTicker(
      label_ticker(h.col_labels, cols, h.label_every_cell ? cols : std::min<size_t>(16, fit)));
  // Row labels one above another in the cells' height: the figure less its title and what is
  // below the cells (the column labels, at 45 degrees where rotated, and the axis label).
  int widest = 0;
  for (const auto& l : h.col_labels) widest = std::max(widest, metrics.horizontalAdvance(qstr(l)));
  int title_px = 0;
  if (auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)))
    title_px = QFontMetrics(title->font()).boundingRect(QRect(), 0, title->text()).height() +
               title->margins().top() + title->margins().bottom();
  const int below_px = (longest > 3 ? widest * 71 / 100 : metrics.height()) + 3 * metrics.height();
  const QFontMetrics row_metrics(plot.yAxis->tickLabelFont());
  const size_t row_fit = static_cast<size_t>(
      std::max(2, (plot.height() - title_px - below_px) * 100 / (115 * row_metrics.height())));
  plot.yAxis->setTicker(
      label_ticker(h.row_labels, rows, h.label_every_cell ? rows : std::min<size_t>(16, row_fit)));
  plot.xAxis->setSubTicks(false);
  plot.yAxis->setSubTicks(false);
  plot.xAxis->setTickLengthIn(0);
  plot.yAxis->setTickLengthIn(0);
  plot.xAxis->setLabel(qstr(h.x_label));
  plot.yAxis->setLabel(qstr(h.y_label));
  plot.xAxis->setRange(-0.5, cols - 0.5);
  plot.yAxis->setRange(-0.5, rows - 0.5);
  plot.yAxis->setRangeReversed(true);  // row 0 at the top, as the matrix is written
  plot.yAxis2->setRangeReversed(true);
}

// Each shown cell's value written on it, legible on dark and light cells.
void annotate_cells(QCustomPlot& plot, const Heatmap& h, const Style& style, ColourRange range) {
  const auto [lo, hi] = range;
  const size_t rows = h.values.size(), cols = rows ? h.values[0].size() : 0;
  const QFont font = figure_font(style, std::max(5.0, style.font_pt - 2));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      if (!shown(h, r, c)) continue;
      auto* text = new QCPItemText(&plot);
      text->position->setType(QCPItemPosition::ptPlotCoords);
      text->position->setCoords(static_cast<double>(c), static_cast<double>(r));
      text->setText(QString::number(h.values[r][c], 'g', 2));
      text->setFont(font);
      const double t = (h.values[r][c] - lo) / (hi - lo);
      text->setColor(t < 0.55 ? Qt::white : Qt::black);  // legible on dark and light cells
    }
}

}  // namespace

void setup_heatmap(QCustomPlot& plot, const Heatmap& h, const Style& style) {
  QCPAxisRect* rect = detail::reset_plot(plot, h.title, style);
  const size_t rows = h.values.size(), cols = rows ? h.values[0].size() : 0;
  if (rows == 0 || cols == 0) return;

  const auto [lo, hi] = colour_range(h);
  auto* map = new QCPColorMap(plot.xAxis, plot.yAxis);
  map->setInterpolate(false);
  map->setAntialiased(false);
  map->data()->setSize(static_cast<int>(cols), static_cast<int>(rows));
  map->data()->setRange(QCPRange(0, std::max<double>(cols - 1, 1e-9)),
                        QCPRange(0, std::max<double>(rows - 1, 1e-9)));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      map->data()->setCell(static_cast<int>(c), static_cast<int>(r),
                           shown(h, r, c) ? h.values[r][c] : kNaN);
  map->setGradient(heatmap_gradient());
  if (h.log_colour) map->setDataScaleType(QCPAxis::stLogarithmic);
  map->setDataRange(QCPRange(lo, hi));

  add_colour_scale(plot, rect, map, h, style, {lo, hi});
  label_cell_axes(plot, h, rows, cols);
  if (h.annotate) annotate_cells(plot, h, style, {lo, hi});
}

}  // namespace fathom::plot
