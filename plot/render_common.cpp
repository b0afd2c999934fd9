#include "plot/render_common.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "plot/log_ticker.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/title_fit.h"
#include "plot/whole_number_ticker.h"

namespace fathom::plot {
namespace detail {

QCPAxisRect* reset_plot(QCustomPlot& plot, const std::string& title, const Style& style) {
  plot.clearItems();
  // The legend's items go first, in one sweep (plot_widget.h): 540 ms for the 1,000 curves of
  // an ungrouped dashboard one by one, against 3 ms this way.
  clear_plottables(plot);
  // Deleting the layout deletes the axis rects (with their axes and inset legend) and colour
  // scales; QCustomPlot nulls its xAxis/legend pointers as they go.
  plot.plotLayout()->clear();
  plot.plotLayout()->simplify();
  // Groups of the last setup (now empty) are children of the plot: drop them, so a GUI that
  // redraws a widget many times does not collect them.
  qDeleteAll(plot.findChildren<QCPMarginGroup*>(QString(), Qt::FindDirectChildrenOnly));
  qDeleteAll(plot.findChildren<QCPBarsGroup*>(QString(), Qt::FindDirectChildrenOnly));
  auto* rect = new QCPAxisRect(&plot, true);
  plot.plotLayout()->addElement(0, 0, rect);
  plot.xAxis = rect->axis(QCPAxis::atBottom);
  plot.yAxis = rect->axis(QCPAxis::atLeft);
  plot.xAxis2 = rect->axis(QCPAxis::atTop);
  plot.yAxis2 = rect->axis(QCPAxis::atRight);
  for (QCPAxis* axis : rect->axes()) style_axis(axis, style, false);
  // A closed box: the top and right axes mirror the bottom and left ticks without labels.
  for (QCPAxis* axis : {plot.xAxis2, plot.yAxis2}) {
    axis->setVisible(true);
    axis->setTickLabels(false);
  }
  QObject::connect(plot.xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot.xAxis2,
                   qOverload<const QCPRange&>(&QCPAxis::setRange));
  QObject::connect(plot.yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), plot.yAxis2,
                   qOverload<const QCPRange&>(&QCPAxis::setRange));
  const int margin = static_cast<int>(std::lround(3 * px_per_pt()));
  plot.plotLayout()->setMargins(QMargins(margin, margin, margin, margin));

  plot.legend = new QCPLegend;
  rect->insetLayout()->addElement(plot.legend, Qt::AlignRight | Qt::AlignTop);
  const int inset = static_cast<int>(std::lround(4 * px_per_pt()));
  rect->insetLayout()->setMargins(QMargins(inset, inset, inset, inset));
  plot.legend->setLayer(QStringLiteral("legend"));
  plot.legend->setVisible(false);
  style_legend(plot.legend, style);

  if (!title.empty()) {
    plot.plotLayout()->insertRow(0);
    const QFont font = figure_font(style, style.title_pt);
    // Within 80 % of the figure: the title's column may share the width with a colour scale.
    const int max_px = static_cast<int>(0.8 * std::max(plot.width(), 1));
    plot.plotLayout()->addElement(
        0, 0,
        new QCPTextElement(&plot, wrap_to_width(qstr(title), QFontMetrics(font), max_px), font));
  }
  plot.setBackground(Qt::white);
  return rect;
}

void apply_scale(QCPAxis* axis, Scale scale) {
  if (scale == Scale::Log) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new ReadableLogTicker));
    axis->setNumberFormat(QStringLiteral("eb"));  // 10^k as a power, not 1e+k
    axis->setNumberPrecision(0);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
  }
}

void apply_limits(QCPAxis* axis, const Axis& spec) {
  QCPRange range = axis->range();
  if (spec.min) range.lower = *spec.min;
  if (spec.max) range.upper = *spec.max;
  axis->setRange(range);
  if (axis->scaleType() == QCPAxis::stLogarithmic) {
    // Within two decades the ticks include 1.5, 2, 3, 5 x 10^k (log_ticker.h), which powers of
    // ten with no digits would all print as 10^k (15 as "10^1"): plain numbers there, powers
    // beyond.
    const bool narrow = range.lower > 0 && range.upper / range.lower < kNarrowLogRatio;
    axis->setNumberFormat(narrow ? QStringLiteral("gb") : QStringLiteral("eb"));
    axis->setNumberPrecision(narrow ? 3 : 0);
  }
}

namespace {

// Where a value lies along an axis, 0 at the lower end and 1 at the upper; NaN when it cannot.
double fraction(const QCPAxis* axis, double v) {
  const QCPRange r = axis->range();
  if (axis->scaleType() == QCPAxis::stLogarithmic) {
    if (!(v > 0) || !(r.lower > 0)) return std::nan("");
    return std::log(v / r.lower) / std::log(r.upper / r.lower);
  }
  return (v - r.lower) / (r.upper - r.lower);
}

// Points (in axis fractions) that show what each plottable covers: along its lines, or up its bars.
// Where a bar stands beside its group's centre: setup_bar_figure places a group's bars side
// by side, each its own width (plot coordinates) wide, with no spacing.
double group_offset(QCPBars* bars) {
  QCPBarsGroup* group = bars->barsGroup();
  if (!group || group->size() < 2) return 0;
  const auto members = group->bars();
  const int index = static_cast<int>(members.indexOf(bars));
  return (index - (members.size() - 1) / 2.0) * bars->width();
}

std::vector<QPointF> footprint(QCustomPlot& plot) {
  std::vector<QPointF> points;
  auto add = [&](const QCPAxis* kx, const QCPAxis* vy, double x, double y) {
    const double fx = fraction(kx, x), fy = fraction(vy, y);
    if (std::isfinite(fx) && std::isfinite(fy)) points.emplace_back(fx, fy);
  };
  for (int i = 0; i < plot.plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot.plottable(i);
    const QCPAxis *kx = p->keyAxis(), *vy = p->valueAxis();
    if (auto* graph = qobject_cast<QCPGraph*>(p)) {
      const auto& data = *graph->data();
      for (auto it = data.constBegin(); it != data.constEnd(); ++it) {
        add(kx, vy, it->key, it->value);
        if (graph->lineStyle() == QCPGraph::lsNone || it + 1 == data.constEnd()) continue;
        for (int s = 1; s < 8; ++s)  // the segment to the next point
          add(kx, vy, it->key + (it[1].key - it->key) * s / 8.0,
              it->value + (it[1].value - it->value) * s / 8.0);
      }
    } else if (auto* bars = qobject_cast<QCPBars*>(p)) {
      for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        for (int s = 0; s <= 8; ++s) {
          const double base = bars->baseValue();
          const double y = vy->scaleType() == QCPAxis::stLogarithmic
                               ? base * std::pow(it->value / base, s / 8.0)
                               : base + (it->value - base) * s / 8.0;
          add(kx, vy, it->key + group_offset(bars), y);
        }
    } else if (auto* whiskers = qobject_cast<QCPErrorBars*>(p)) {
      auto* bars = qobject_cast<QCPBars*>(whiskers->dataPlottable());
      if (!bars) continue;
      const int n = std::min(whiskers->dataCount(), bars->data()->size());
      for (int i = 0; i < n; ++i) {
        const QCPErrorBarsData& e = whiskers->data()->at(i);
        const auto bar = bars->data()->at(i);
        for (int s = 0; s <= 8; ++s)
          add(kx, vy, bar->key + group_offset(bars),
              bar->value - e.errorMinus + (e.errorMinus + e.errorPlus) * s / 8.0);
      }
    }
  }
  return points;
}

// Width in logical pixels of the widest legend entry, icon included.
int legend_entry_width(const QCustomPlot& plot) {
  const QFontMetrics metrics(plot.legend->font());
  int widest = 0;
  for (int i = 0; i < plot.legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
      widest = std::max(widest, metrics.horizontalAdvance(item->plottable()->name()));
  return widest + plot.legend->iconSize().width() + plot.legend->iconTextPadding() +
         static_cast<int>(std::lround(8 * px_per_pt()));
}

// The inside corner whose legend-sized box covers the fewest data points (ties: top right),
// and the share of the points it covers. The box is estimated against the widget's size (export
// sizes the widget first); the axis rect is taken as 80% of it.
// The share of the axis rect's height a legend of `rows` rows takes (the rect taken as 70% of
// the widget's height).
double legend_rows_share(QCustomPlot& plot, int rows) {
  const double line = QFontMetrics(plot.legend->font()).height() + 1.5 * px_per_pt();
  return std::min(1.0, (rows * line + 8 * px_per_pt()) / (0.7 * std::max(plot.height(), 1)));
}

std::pair<Qt::Alignment, double> emptiest_corner(QCustomPlot& plot) {
  const int columns = plot.legend->columnCount();
  const double w = std::min(1.0, (columns * legend_entry_width(plot) + 8 * px_per_pt()) /
                                     (0.8 * std::max(plot.width(), 1)));
  const double h = legend_rows_share(plot, plot.legend->rowCount());
  const std::vector<QPointF> points = footprint(plot);
  const Qt::Alignment corners[] = {Qt::AlignRight | Qt::AlignTop, Qt::AlignLeft | Qt::AlignTop,
                                   Qt::AlignRight | Qt::AlignBottom,
                                   Qt::AlignLeft | Qt::AlignBottom};
  Qt::Alignment best = corners[0];
  size_t fewest = SIZE_MAX;
  for (Qt::Alignment corner : corners) {
    const double x0 = corner & Qt::AlignRight ? 1 - w : 0, y0 = corner & Qt::AlignTop ? 1 - h : 0;
    size_t covered = 0;
    for (const QPointF& p : points)
      covered += p.x() >= x0 && p.x() <= x0 + w && p.y() >= y0 && p.y() <= y0 + h;
    if (covered < fewest) fewest = covered, best = corner;
  }
  return {best, points.empty() ? 0.0 : double(fewest) / points.size()};
}

}  // namespace

namespace {

// Removes from every legend entry the words (split at spaces, '/' and ',') that all entries
// share: what every curve has in common tells the reader nothing, e.g. the sweep's name.
void drop_shared_words(QCustomPlot& plot) {
  std::vector<QCPAbstractPlottable*> named;
  for (int i = 0; i < plot.legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i)))
      named.push_back(item->plottable());
  if (named.size() < 2) return;
  static const QRegularExpression separators(QStringLiteral("[ /,]+"));
  auto words = [](const QString& name) {
    const QStringList parts = name.split(separators, Qt::SkipEmptyParts);
    return QSet<QString>(parts.begin(), parts.end());
  };
  QSet<QString> shared = words(named[0]->name());
  for (size_t i = 1; i < named.size(); ++i) shared &= words(named[i]->name());
  if (shared.isEmpty()) return;
  for (QCPAbstractPlottable* p : named) {
    // Keep the separators between the words that stay: rebuild from the original's pieces.
    QString out, pending;
    const QString name = p->name();
    qsizetype i = 0;
    while (i < name.size()) {
      qsizetype j = i;
      while (j < name.size() && !QStringLiteral(" /,").contains(name[j])) ++j;
      const QString word = name.mid(i, j - i);
      qsizetype k = j;
      while (k < name.size() && QStringLiteral(" /,").contains(name[k])) ++k;
      const bool kept = !word.isEmpty() && !shared.contains(word);
      if (kept) out += pending + word;
      // The separator after a kept word joins it to the next kept one; after a dropped word
      // the one before it stays ("1 screens/norm=post" -> "1 norm=post").
      if (kept && !out.isEmpty()) pending = name.mid(j, k - j);
      i = k;
    }
    if (!out.isEmpty()) p->setName(out);
  }
}

}  // namespace

namespace {

// Where `rect` sits in the plot's layout grid.
std::pair<int, int> cell_of(QCPLayoutGrid* layout, QCPLayoutElement* element) {
  for (int r = 0; r < layout->rowCount(); ++r)
    for (int c = 0; c < layout->columnCount(); ++c)
      if (layout->element(r, c) == element) return {r, c};
  return {0, 0};
}

// The legend's font (and icon) at `scale` of `font`.
void scale_legend(QCustomPlot& plot, const QFont& font, double scale) {
  QFont smaller = font;
  smaller.setPointSizeF(font.pointSizeF() * scale);
  plot.legend->setFont(smaller);
  for (int i = 0; i < plot.legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = plot.legend->item(i)) item->setFont(smaller);  // or a gap
  plot.legend->setIconSize(QSize(static_cast<int>(std::lround(18 * scale * px_per_pt())),
                                 static_cast<int>(std::lround(8 * scale * px_per_pt()))));
}

// The height of the legend in `rows` rows of entries, as QCustomPlot lays it out.
double legend_height(const QCustomPlot& plot, int rows, int descent) {
  const QMargins m = plot.legend->margins();
  return rows * (QFontMetrics(plot.legend->font()).height() + descent) +
         std::max(0, rows - 1) * plot.legend->rowSpacing() + m.top() + m.bottom();
}

// A column right of the plot, at its top, when one or two columns of entries fit in what
// kBesideShare of the widget's width leaves beside the axes, and in its height, at a font of at
// least 0.72 of the legend's (a row above goes down to 0.6).
bool place_legend_beside(QCustomPlot& plot, QCPAxisRect* rect, int entries, int descent) {
  const QFont font = plot.legend->font();
  const double budget = kBesideShare * plot.width();  // the layout below says what fits
  for (double scale : {1.0, 0.85, 0.72}) {
    scale_legend(plot, font, scale);
    for (int columns : {1, 2}) {
      const int rows = (entries + columns - 1) / columns;
      const QMargins m = plot.legend->margins();
      const double width = columns * legend_entry_width(plot) +
                           (columns - 1) * plot.legend->columnSpacing() + m.left() + m.right();
      if (width > budget || legend_height(plot, rows, descent) > 0.8 * plot.height()) continue;
      plot.legend->setWrap(columns);
      plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
      QCPLayoutGrid* layout = plot.plotLayout();
      const auto [row, col] = cell_of(layout, rect);
      // The legend at the top of its column: an empty element below it takes the rest.
      auto* side = new QCPLayoutGrid;
      layout->insertColumn(col + 1);
      layout->addElement(row, col + 1, side);
      side->addElement(0, 0, plot.legend);
      side->addElement(1, 0, new QCPLayoutElement(&plot));
      side->setRowStretchFactor(0, 0.001);
      side->setRowSpacing(0);
      layout->setColumnStretchFactor(col + 1, 0.001);  // as narrow as its entries allow
      // Laid out at the widget's size (a figure's, before export paints it): do the data keep
      // their share of the width? Else the column goes again.
      layout->setOuterRect(QRect(QPoint(0, 0), plot.size()));
      for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                         QCPLayoutElement::upLayout})
        layout->update(phase);
      if (rect->width() >= (1 - kBesideShare) * plot.width()) return true;
      side->take(plot.legend);
      layout->remove(side);
      layout->simplify();
    }
  }
  scale_legend(plot, font, 1.0);
  return false;
}

// A row above the plot, its font shrunk until it takes at most a third of the height. False,
// the legend back in its inset, where even the smallest font leaves it taller.
bool place_legend_above(QCustomPlot& plot, QCPAxisRect* rect, int entries, int descent) {
  QCPLayoutGrid* layout = plot.plotLayout();
  const auto [row, col] = cell_of(layout, rect);
  layout->insertRow(row);
  layout->addElement(row, col, plot.legend);
  layout->setRowStretchFactor(row, 0.001);  // as small as its entries allow
  const QFont font = plot.legend->font();
  for (double scale : {1.0, 0.85, 0.72, 0.6}) {
    scale_legend(plot, font, scale);
    // As many entries a row as the widget's width holds.
    const int entry = legend_entry_width(plot);
    const int per_row =
        std::clamp(static_cast<int>(0.95 * plot.width()) / std::max(entry, 1), 1, entries);
    plot.legend->setWrap(per_row);
    if (legend_height(plot, (entries + per_row - 1) / per_row, descent) <= plot.height() / 3.0) {
      plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
      return true;
    }
  }
  layout->take(plot.legend);
  layout->simplify();
  scale_legend(plot, font, 1.0);
  rect->insetLayout()->addElement(plot.legend, Qt::AlignRight | Qt::AlignTop);
  return false;
}

// Entries too many to read at this size (a sweep's hundreds of runs took the figure's height
// and left the data a sliver): no legend, and a grey line above the plot says how many were
// left out.
void leave_legend_out(QCustomPlot& plot, QCPAxisRect* rect, int entries) {
  plot.legend->setVisible(false);
  QCPLayoutGrid* layout = plot.plotLayout();
  const auto [row, col] = cell_of(layout, rect);
  layout->insertRow(row);
  auto* note = new QCPTextElement(
      &plot, QStringLiteral("legend left out: %1 entries do not fit the figure").arg(entries),
      plot.legend->font());
  note->setTextColor(QColor(110, 110, 110));
  layout->addElement(row, col, note);
  layout->setRowStretchFactor(row, 0.001);
}

}  // namespace

double bar_top_without_legend(double highest, double bottom, bool log) {
  return log ? highest * 2 : highest + 0.1 * (highest - bottom);
}

double legend_height_share(QCustomPlot& plot) {
  const int entries = plot.legend ? plot.legend->itemCount() : 0;
  if (entries == 0) return 0;
  return legend_rows_share(plot, entries > 6 ? (entries + 1) / 2 : entries);  // its wrap
}

void finish_legend(QCustomPlot& plot) {
  const int entries = plot.legend->itemCount();
  plot.legend->setVisible(entries > 0);
  if (entries == 0) return;
  // Room below each entry: items clip to their own rect, which would cut off underscores.
  const int descent = static_cast<int>(std::lround(1.5 * px_per_pt()));
  for (int i = 0; i < entries; ++i) plot.legend->item(i)->setMargins(QMargins(0, 0, 0, descent));
  // setWrap only takes effect when setFillOrder rearranges the entries.
  if (entries > 6) {  // two columns, filled row by row
    plot.legend->setWrap(2);
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  }
  QCPAxisRect* rect = plot.axisRect();
  QCPLayoutInset* inset = rect->insetLayout();
  const auto [corner, covered] = emptiest_corner(plot);
  if (covered <= 0.01) {  // hiding a sliver of one curve beats squeezing the plot
    for (int i = 0; i < inset->elementCount(); ++i)
      if (inset->elementAt(i) == plot.legend) inset->setInsetAlignment(i, corner);
    return;
  }
  // Every corner would hide data: the legend goes outside the plot, beside it where it fits in
  // kBesideShare of the width (the data keep the rest), else in a row of its own above -- but a
  // legend of many long entries there took two thirds of a one-column figure (issue 36). So:
  // words every entry shares go ("screens/", a sweep's name), and the font shrinks in steps
  // until the legend takes at most a third of the figure's height; where none does, the
  // legend is left out and a line says so.
  drop_shared_words(plot);
  inset->take(plot.legend);
  inset->simplify();
  plot.legend->setBorderPen(Qt::NoPen);
  if (!place_legend_beside(plot, rect, entries, descent) &&
      !place_legend_above(plot, rect, entries, descent))
    leave_legend_out(plot, rect, entries);
}

QCPAxisRect* reset_xy_plot(QCustomPlot& plot, const std::string& title, const Axis& x,
                           const Axis& y, const Style& style) {
  QCPAxisRect* rect = reset_plot(plot, title, style);
  apply_scale(plot.xAxis, x.scale);
  apply_scale(plot.yAxis, y.scale);
  apply_scale(plot.xAxis2, x.scale);
  apply_scale(plot.yAxis2, y.scale);
  for (auto [axis, spec] : {std::pair{plot.xAxis, &x}, std::pair{plot.yAxis, &y}})
    if (spec->whole_numbers && spec->scale == Scale::Linear)
      axis->setTicker(QSharedPointer<QCPAxisTicker>(new WholeNumberTicker));
  style_axis(plot.xAxis, style, true);
  style_axis(plot.yAxis, style, true);
  return rect;
}

}  // namespace detail

void setup_plot(QCustomPlot& plot, const Figure& figure, const Style& style) {
  std::visit(
      [&](const auto& f) {
        using T = std::decay_t<decltype(f)>;
        if constexpr (std::is_same_v<T, Heatmap>)
          setup_heatmap(plot, f, style);
        else if constexpr (std::is_same_v<T, LineFigure>)
          setup_line_figure(plot, f, style);
        else if constexpr (std::is_same_v<T, BarFigure>)
          setup_bar_figure(plot, f, style);
        else
          setup_curve_figure(plot, f, style);
      },
      figure);
}

bool fit_x_tick_count(QCustomPlot& plot) {
  QCPAxis* axis = plot.xAxis;
  if (!axis || !axis->axisRect() || axis->scaleType() != QCPAxis::stLinear) return false;
  const int width = axis->axisRect()->width();
  if (width <= 0) return false;
  const QFontMetrics metrics(axis->tickLabelFont());
  const QCPRange range = axis->range();
  const int label = std::max(metrics.horizontalAdvance(QString::number(range.lower, 'g', 4)),
                             metrics.horizontalAdvance(QString::number(range.upper, 'g', 4)));
  const int fits = width / std::max(1, label + metrics.horizontalAdvance(QStringLiteral("M")));
  // A readable step (1, 2, 2.5, 5 x 10^k, the closest to range / count) can give up to 1.5
  // times the ticks asked for (7.5 rounds to 5).
  const int count = std::clamp(fits * 2 / 3, 2, 5);
  if (axis->ticker()->tickCount() == count) return false;
  axis->ticker()->setTickCount(count);
  return true;
}

bool fit_legend_headroom(QCustomPlot& plot) {
  QCPAxis* y = plot.yAxis;
  QCPAxisRect* rect = y ? y->axisRect() : nullptr;
  if (!rect || !plot.legend || !plot.legend->visible() || rect->height() <= 0) return false;
  const QRect legend = plot.legend->outerRect();
  if (legend.height() <= 0 || legend.center().y() > rect->center().y()) return false;  // low
  if (legend.left() >= rect->right()) return false;  // beside the plot: over no value
  bool found_any = false;
  double highest = 0;
  for (int i = 0; i < plot.plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot.plottable(i);
    if (p->valueAxis() != y || !p->visible()) continue;
    bool found = false;
    const QCPRange values = p->getValueRange(found);  // a bar's base to top; whiskers' ends
    if (!found) continue;
    highest = found_any ? std::max(highest, values.upper) : values.upper;
    found_any = true;
  }
  if (!found_any) return false;
  // The highest value must sit this far below the legend's lower edge.
  const double below = legend.bottom() + 4 * px_per_pt();
  const double share = (rect->bottom() - below) / rect->height();  // of the rect under it
  if (share <= 0.2) return false;  // a legend over most of the chart: no range can help
  const QCPRange range = y->range();
  const bool log = y->scaleType() == QCPAxis::stLogarithmic;
  if (log && (range.lower <= 0 || highest <= range.lower)) return false;
  // The least top that keeps the highest value under the legend, but no less than the room a
  // bar chart leaves without one.
  const double needed = log ? range.lower * std::pow(highest / range.lower, 1 / share)
                            : range.lower + (highest - range.lower) / share;
  const double top = std::max(needed, detail::bar_top_without_legend(highest, range.lower, log));
  // Half a pixel of slack, so that the fit settles: the legend's pixels do not move with the
  // range, so the second call finds the top it set.
  if (std::abs(y->coordToPixel(top) - y->coordToPixel(range.upper)) < 0.5) return false;
  y->setRangeUpper(top);
  return true;
}

namespace {

// fit_curve_axes's air on one axis: `factor` times its range, about its middle.
void add_axis_air(QCPAxis* axis, const Axis& spec, double factor) {
  if (spec.min || spec.max) return;
  const QCPRange r = axis->range();
  if (axis->scaleType() == QCPAxis::stLogarithmic) {
    // QCPAxis::scaleRange(factor) centres on the arithmetic mean even on a log axis.
    if (r.lower > 0 && r.upper > r.lower) axis->scaleRange(factor, std::sqrt(r.lower * r.upper));
  } else if (r.upper > r.lower) {
    axis->scaleRange(factor);
  }
}

// The keys (x) or values (y) of the visible plottables; found false when there are none.
QCPRange visible_range(QCustomPlot& plot, bool keys, bool& found) {
  QCPRange all;
  found = false;
  for (int i = 0; i < plot.plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot.plottable(i);
    if (!p->visible() || (keys ? p->keyAxis() != plot.xAxis : p->valueAxis() != plot.yAxis))
      continue;
    bool here = false;
    const QCPRange r = keys ? p->getKeyRange(here) : p->getValueRange(here);
    if (!here) continue;
    all = found ? QCPRange(std::min(all.lower, r.lower), std::max(all.upper, r.upper)) : r;
    found = true;
  }
  return all;
}

// An axis whose data is one number: QCustomPlot keeps the axis's old width about it.
bool one_number(QCustomPlot& plot, bool keys, double& at) {
  bool found = false;
  const QCPRange r = visible_range(plot, keys, found);
  at = r.lower;
  return found && r.upper == r.lower;
}

}  // namespace

void fit_curve_axes(QCustomPlot& plot, const Axis& x, const Axis& y) {
  plot.rescaleAxes(/*onlyVisiblePlottables=*/true);
  // A log x axis is a grid of values (learning rates), each marked: a little more.
  add_axis_air(plot.xAxis, x, x.scale == Scale::Log ? 1.06 : 1.05);
  add_axis_air(plot.yAxis, y, 1.05);
  double at = 0;
  // Points at one x (the first validation's, at update 100): the axis a curve from the origin
  // to them would get, with its air -- QCustomPlot left 98 to 102, a stretch of updates that
  // says nothing beside the run's other charts. Every x a curve has counts from 0 (updates,
  // tokens, seconds, a depth); one below 0 gets 10 % of itself each side.
  if (!x.min && !x.max && plot.xAxis->scaleType() == QCPAxis::stLinear &&
      one_number(plot, true, at)) {
    if (at > 0)
      plot.xAxis->setRange(-0.025 * at, 1.025 * at);
    else if (at == 0)
      plot.xAxis->setRange(-0.05, 1);
    else
      plot.xAxis->setRange(1.1 * at, 0.9 * at);
  }
  if (y.min || y.max || plot.yAxis->scaleType() == QCPAxis::stLogarithmic) return;
  if (!one_number(plot, false, at)) return;
  // One value (a curve's first point, a constant): -1.4 to 3.6 around a first BLEU of 1.1 was
  // QCustomPlot's; 10 % of the value each side instead (a value of 0: up to 1, with the air
  // below that keeps its marker whole).
  const double pad = at != 0 ? 0.1 * std::abs(at) : 1;
  plot.yAxis->setRange(at == 0 ? -0.05 : at - pad, at + pad);
}

}  // namespace fathom::plot
