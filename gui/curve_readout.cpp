// CurvePlot's hover read-out (gui/curve_plot.h; issue 58 item 5): at the step under the mouse,
// a crosshair over the chart and, in a tooltip, every drawn curve's value there, highest first
// -- what W&B and TensorBoard show -- with the curve nearest the mouse in bold. A tooltip is a
// window of its own, so the read-out never takes room from the charts or moves them.
#include <algorithm>
#include <cmath>
#include <limits>

#include <qcustomplot.h>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include "gui/curve_plot.h"

namespace fathom::gui {
namespace {

// A tooltip of a whole screen's height helps nobody: the rest are counted.
constexpr size_t kMaxHoverRows = 24;
// A curve is listed at the mouse's step while that step lies within its points, give or take
// this many pixels (a run that ended earlier, or starts later, is not).
constexpr double kRowReachPx = 12;
// The curve nearest the mouse is named when its point is this close (pixels).
constexpr double kNearestPx = 40;

// A dashed vertical line at the hovered step with a dot on each listed curve's point, painted
// over the plot; the mouse passes through it to the plot.
class Crosshair : public QWidget {
 public:
  explicit Crosshair(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    hide();
  }
  void place(int x, const QRect& area, std::vector<std::pair<QPointF, QColor>> dots) {
    x_ = x, area_ = area, dots_ = std::move(dots);
    setGeometry(parentWidget()->rect());
    raise();
    show();
    update();
  }
  int x() const { return isVisible() ? x_ : -1; }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setPen(QPen(QColor(0, 0, 0, 120), 1, Qt::DashLine));
    p.drawLine(x_, area_.top(), x_, area_.bottom());
    p.setRenderHint(QPainter::Antialiasing);
    for (const auto& [at, colour] : dots_) {
      if (!area_.contains(at.toPoint())) continue;
      p.setPen(QPen(Qt::white, 1.5));
      p.setBrush(colour);
      p.drawEllipse(at, 3.5, 3.5);
    }
  }

 private:
  int x_ = 0;
  QRect area_;
  std::vector<std::pair<QPointF, QColor>> dots_;
};

QString hover_value_text(double v) { return QString::number(v, 'g', 5); }

}  // namespace

QWidget* CurvePlot::makeCrosshair(QWidget* plot) { return new Crosshair(plot); }

int CurvePlot::crosshairX() const { return static_cast<const Crosshair*>(crosshair_)->x(); }

QString CurvePlot::xText(double x) const {
  if (x_kind_ == "tokens") return QStringLiteral("%1 tokens").arg(x, 0, 'f', 0);
  if (x_kind_ == "compute") return QStringLiteral("%1 FLOPs").arg(x, 0, 'g', 4);
  if (x_kind_ == "time") {
    const long s = std::lround(x);
    return QStringLiteral("%1:%2:%3 since start")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  }
  return QStringLiteral("step %1").arg(x, 0, 'f', 0);
}

QString CurvePlot::groupText(size_t index, double x) const {
  // Only setFigure's figures hold groups (setCurves leaves figure_ empty).
  const plot::CurveFigure& f = figure_;
  if (index >= f.curves.size() || f.curves[index].members.empty()) return {};
  const plot::Curve& c = f.curves[index];
  // The point nearest x: its member count.
  auto at = std::lower_bound(c.step.begin(), c.step.end(), x);
  if (at == c.step.end() && at != c.step.begin()) --at;
  const size_t i = static_cast<size_t>(at - c.step.begin());
  QString text = QStringLiteral("mean of %1 of %2:")
                     .arg(i < c.count.size() ? c.count[i] : 0)
                     .arg(c.members.size());
  constexpr size_t kListed = 8;  // a 50-seed group would fill the window
  for (size_t m = 0; m < c.members.size() && m < kListed; ++m)
    text += (m ? QStringLiteral(", ") : QStringLiteral(" ")) + QString::fromStdString(c.members[m]);
  if (c.members.size() > kListed)
    text += QStringLiteral(", ... (%1 more)").arg(c.members.size() - kListed);
  return text;
}

CurvePlot::Hover CurvePlot::hoverAt(const QPoint& pixel) const {
  Hover hover;
  if (!plot_->xAxis || !plot_->axisRect()->rect().contains(pixel)) return hover;
  const double mx = plot_->xAxis->pixelToCoord(pixel.x());
  double nearest = kNearestPx, snap = std::numeric_limits<double>::infinity();
  for (const plot::CurveGraphs& drawn : graphs_) {
    // The named curves (not the faint raw ones, nor the marks), as the user left them shown:
    // what a legend lists, read from the set-up, not from the legend -- the dashboard's charts
    // have none of their own, and a search of it for each of thousands of curves was quadratic.
    QCPGraph* graph = drawn.line;
    if (!graph || !graph->visible() || graph->name().isEmpty() || graph->data()->isEmpty())
      continue;
    const auto data = graph->data();
    const double first = graph->keyAxis()->coordToPixel(data->constBegin()->key);
    const double last = graph->keyAxis()->coordToPixel((data->constEnd() - 1)->key);
    if (pixel.x() < std::min(first, last) - kRowReachPx ||
        pixel.x() > std::max(first, last) + kRowReachPx)
      continue;
    // Its finite point nearest the mouse's step.
    auto it = data->findBegin(mx, true);
    auto best = data->constEnd();
    for (int k = 0; k < 2 && it != data->constEnd(); ++k, ++it)
      if (std::isfinite(it->value) &&
          (best == data->constEnd() || std::abs(it->key - mx) < std::abs(best->key - mx)))
        best = it;
    if (best == data->constEnd()) continue;
    HoverRow row{graph->name(), {}, best->key, best->value, {}, false};
    auto look = base_look_.find(graph);
    row.colour = look != base_look_.end() ? look->second.first.color() : graph->pen().color();
    row.colour.setAlpha(255);
    const double dx = graph->keyAxis()->coordToPixel(best->key) - pixel.x();
    const double dy = graph->valueAxis()->coordToPixel(best->value) - pixel.y();
    if (std::abs(dx) < std::abs(snap)) snap = dx, hover.x = best->key;
    if (std::hypot(dx, dy) < nearest) {
      nearest = std::hypot(dx, dy);
      for (HoverRow& r : hover.rows) r.nearest = false;
      row.nearest = true;
      for (size_t i = 0; i < graphs_.size(); ++i)
        if (graphs_[i].line == graph) row.extra = groupText(i, best->key);
    }
    hover.rows.push_back(std::move(row));
  }
  if (const auto mark = mark_at(*plot_, placed_, pixel)) {
    const ChartMark& m = placed_[*mark];
    hover.mark = QStringLiteral("%1   %2").arg(m.curve, m.text);
    hover.x = m.x;
  }
  if (hover.empty()) return hover;
  hover.head = xText(hover.x);
  // Highest first, as the curves stand on the chart.
  std::stable_sort(hover.rows.begin(), hover.rows.end(),
                   [](const HoverRow& a, const HoverRow& b) { return a.value > b.value; });
  if (hover.rows.size() > kMaxHoverRows) {
    // The nearest curve stays listed, in the last place kept if it would be cut.
    auto near = std::find_if(hover.rows.begin(), hover.rows.end(),
                             [](const HoverRow& r) { return r.nearest; });
    if (near != hover.rows.end() && near - hover.rows.begin() >= long(kMaxHoverRows))
      std::swap(*near, hover.rows[kMaxHoverRows - 1]);
    hover.left_out = hover.rows.size() - kMaxHoverRows;
    hover.rows.resize(kMaxHoverRows);
  }
  return hover;
}

QString CurvePlot::plainText(const Hover& hover) {
  if (hover.empty()) return QStringLiteral(" ");
  QString text = hover.head;
  if (!hover.mark.isEmpty()) text += "\n" + hover.mark;
  for (const HoverRow& r : hover.rows)
    text += "\n" + r.name + "   " + hover_value_text(r.value) +
            (r.extra.isEmpty() ? "" : "   " + r.extra);
  if (hover.left_out) text += QStringLiteral("\n... and %1 more").arg(hover.left_out);
  return text;
}

QString CurvePlot::richText(const Hover& hover) {
  QString html = "<b>" + hover.head.toHtmlEscaped() + "</b>";
  if (!hover.mark.isEmpty()) html += "<br>" + hover.mark.toHtmlEscaped();
  html += QStringLiteral("<table cellspacing=0 cellpadding=1>");
  for (const HoverRow& r : hover.rows) {
    const QString open = r.nearest ? "<b>" : "", close = r.nearest ? "</b>" : "";
    html +=
        QStringLiteral(
            "<tr><td><span style='color:%1'>&#9632;</span></td><td>%2%3%4</td>"
            "<td align=right>&nbsp;&nbsp;%2%5%4</td></tr>")
            .arg(r.colour.name(), open, r.name.toHtmlEscaped(), close, hover_value_text(r.value));
    if (!r.extra.isEmpty())
      html += "<tr><td></td><td colspan=2><i>" + r.extra.toHtmlEscaped() + "</i></td></tr>";
  }
  html += "</table>";
  if (hover.left_out) html += QStringLiteral("... and %1 more").arg(hover.left_out);
  return html;
}

QString CurvePlot::readoutAt(const QPoint& pixel) const { return plainText(hoverAt(pixel)); }

void CurvePlot::showReadout(QMouseEvent* event) {
  const Hover hover = hoverAt(event->pos());
  readout_ = plainText(hover);
  if (hover.empty()) {
    hideReadout();
    return;
  }
  std::vector<std::pair<QPointF, QColor>> dots;
  for (const HoverRow& r : hover.rows)
    dots.emplace_back(QPointF(plot_->xAxis->coordToPixel(r.x), plot_->yAxis->coordToPixel(r.value)),
                      r.colour);
  static_cast<Crosshair*>(crosshair_)
      ->place(int(std::lround(plot_->xAxis->coordToPixel(hover.x))), plot_->axisRect()->rect(),
              std::move(dots));
  // Beside the mouse, below and to the right, where the hovered curves are not.
  QToolTip::showText(plot_->mapToGlobal(event->pos() + QPoint(18, 12)), richText(hover), plot_);
}

void CurvePlot::hideReadout() {
  readout_ = QStringLiteral(" ");
  if (!crosshair_->isVisible()) return;  // the tooltip, if any, is another chart's
  crosshair_->hide();
  QToolTip::hideText();
}

bool CurvePlot::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::Leave) hideReadout();
  return QWidget::eventFilter(watched, event);
}

}  // namespace fathom::gui
