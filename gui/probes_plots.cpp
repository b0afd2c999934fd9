// The Probes tab's plots (a part of ProbesView, gui/probes_view.h): one per selected run with
// the chosen probe, laid out as many to a row as fit, drawn as heatmaps or lines, their column
// labels and titles fitted to their width, and the value under the mouse.
#include <qcustomplot.h>
#include <QGridLayout>
#include <QLabel>
#include <algorithm>
#include <cmath>
#include <limits>

#include "gui/export_menu.h"
#include "gui/probes_view.h"
#include "gui/screen_style.h"
#include "plot/plot_widget.h"
#include "plot/render.h"
#include "plot/style.h"

namespace fathom::gui {
namespace {

constexpr int kPlotsPerRow = 4;
constexpr int kPlotMinHeight = 220;  // two rows fit a laptop's 1100x700 window
constexpr size_t kMostLegendEntries = 8;

// The sub-layers a lines panel draws, in order (what its legend would list).
std::vector<std::string> line_names(const plot::LineFigure& f) {
  std::vector<std::string> names;
  for (const auto& s : f.series) names.push_back(s.name);
  return names;
}

}  // namespace

std::vector<std::pair<std::string, plot::Figure>> ProbesView::figuresShown() const {
  std::vector<std::pair<std::string, plot::Figure>> out;
  const size_t n = linesMode() ? lines_.size() : heatmaps_.size();
  for (size_t i = 0; i < n && i < plot_runs_.size(); ++i) {
    const std::string suffix = "run" + std::to_string(plot_runs_[i]);
    if (!linesMode()) {
      out.emplace_back(suffix, heatmaps_[i]);
      continue;
    }
    plot::LineFigure f = lines_[i];  // as drawn: dozens of sub-layers get no legend entry each
    if (f.series.size() > kMostLegendEntries)
      for (auto& s : f.series) s.name.clear();
    out.emplace_back(suffix, std::move(f));
  }
  return out;
}

void ProbesView::keepPlots(size_t count) {
  while (plots_.size() > count) {
    delete plots_.back();
    plots_.pop_back();
  }
  while (plots_.size() < count) {
    auto* plot = new plot::PlotWidget;
    plot->setMinimumSize(180, kPlotMinHeight);
    plot->setMouseTracking(true);
    add_export_menu(plot);  // drawn as shown
    plot->installEventFilter(this);
    const size_t index = plots_.size();
    connect(plot, &QCustomPlot::mouseMove, this,
            [this, index](QMouseEvent* event) { hover(index, event->pos()); });
    plots_.push_back(plot);
  }
  placePlots();
}

int ProbesView::plotsPerRow() const {
  // A heatmap beside its sub-layer labels and colour scale reads from about this width on.
  constexpr int kGoodPlotWidth = 330;
  return std::clamp(width() / kGoodPlotWidth, 1, kPlotsPerRow);
}

void ProbesView::placePlots() {
  const int count = static_cast<int>(plots_.size());
  columns_ = std::min(plotsPerRow(), std::max(1, count));
  for (QCustomPlot* plot : plots_) grid_->removeWidget(plot);
  for (int i = 0; i < count; ++i) grid_->addWidget(plots_[i], i / columns_, i % columns_);
  for (int c = 0; c < kPlotsPerRow; ++c) grid_->setColumnStretch(c, c < columns_ ? 1 : 0);
}

void ProbesView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const int count = static_cast<int>(plots_.size());
  if (count > 0 && std::min(plotsPerRow(), count) != columns_) placePlots();
}

void ProbesView::drawHeatmaps(const std::vector<std::pair<std::string, db::ProbeSeries>>& runs) {
  heatmaps_ = plot::probe_heatmaps(runs, currentProbe(), currentHeads());
  keepPlots(heatmaps_.size());
  const plot::Style style = screen_style(font());
  for (size_t i = 0; i < heatmaps_.size(); ++i) {
    plot::setup_heatmap(*plots_[i], heatmaps_[i], style);
    plots_[i]->replot();  // lays the axis rect out, which fitColumnLabels measures
    fitColumnLabels(i);
    fitTitle(i);
    plots_[i]->replot();
  }
}

// The renderer labels up to 16 columns, which overlap in a narrow plot (four to a row on a
// laptop): every k-th update's label, k such that they fit the plot's width.
void ProbesView::fitColumnLabels(size_t index) {
  if (linesMode() || index >= heatmaps_.size() || index >= plots_.size()) return;
  const std::vector<std::string>& labels = heatmaps_[index].col_labels;
  QCPAxis* axis = plots_[index]->xAxis;
  if (labels.empty() || !axis) return;
  const QFontMetrics metrics(axis->tickLabelFont());
  int widest = 0;
  for (const auto& l : labels)
    widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(l)));
  // Rotated labels (long step numbers) stand side by side at about their height apart.
  const int each = (axis->tickLabelRotation() != 0 ? metrics.height() : widest) + 10;
  const int fit = std::max(1, axis->axisRect()->width() / each);
  const size_t every = (labels.size() + fit - 1) / static_cast<size_t>(fit);
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (size_t c = 0; c < labels.size(); c += std::max<size_t>(every, 1))
    ticker->addTick(static_cast<double>(c), QString::fromStdString(labels[c]));
  axis->setTicker(ticker);
}

void ProbesView::drawLines(const std::vector<std::pair<std::string, db::ProbeSeries>>& runs) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& [label, series] : runs) {
    lines_.push_back(plot::probe_lines(series, currentProbe(), label, currentHeads()));
    for (const auto& s : lines_.back().series)
      for (double v : s.y)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  // One y range for every run, log when probe_lines chose it for any (it does so only for
  // positive values spanning decades).
  const bool log = std::any_of(lines_.begin(), lines_.end(),
                               [](const auto& f) { return f.y.scale == plot::Scale::Log; }) &&
                   lo > 0;
  keepPlots(lines_.size());
  const bool same_lines = std::all_of(lines_.begin(), lines_.end(), [this](const auto& f) {
    return line_names(f) == line_names(lines_.front());
  });
  const plot::Style style = screen_style(font());
  for (size_t i = 0; i < lines_.size(); ++i) {
    plot::LineFigure& f = lines_[i];
    f.y.scale = log ? plot::Scale::Log : plot::Scale::Linear;
    if (std::isfinite(lo)) {
      const double pad = log ? 1.0 : 0.05 * std::max(hi - lo, 1e-12);
      f.y.min = log ? lo / 1.2 : lo - pad;
      f.y.max = log ? hi * 1.2 : hi + pad;
    }
    QCustomPlot& plot = *plots_[i];
    // Depth as colour: dozens of sub-layers cannot each have a legend entry to tell them apart
    // (unnamed lines get none; the hover names them). Panels of the same sub-layers share the
    // first panel's legend instead of repeating it in each.
    plot::LineFigure drawn = f;
    if (drawn.series.size() > kMostLegendEntries || (i > 0 && same_lines))
      for (auto& s : drawn.series) s.name.clear();
    plot::setup_line_figure(plot, drawn, style);
    const int n = plot.graphCount();
    for (int g = 0; g < n; ++g) {
      plot.graph(g)->setPen(QPen(plot::gradient_colour(n > 1 ? 0.9 * g / (n - 1) : 0), 1.2));
      plot.graph(g)->setScatterStyle(QCPScatterStyle::ssNone);
    }
    plot.replot();  // lays the title's cell out, which fitTitle measures
    fitTitle(i);
    plot.replot();
  }
}

// A title longer than its cell (four plots to a row on a laptop) was centred and cut at both
// ends, losing the run's id: elided at the right instead.
void ProbesView::fitTitle(size_t index) {
  if (index >= plots_.size()) return;
  QCustomPlot* plot = plots_[index];
  if (plot->plotLayout()->rowCount() == 0) return;
  auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
  if (!title) return;
  const std::string& full = linesMode() ? (index < lines_.size() ? lines_[index].title : "")
                                        : (index < heatmaps_.size() ? heatmaps_[index].title : "");
  // Its cell is the axis rect's column, narrower than the plot by the colour scale: measured
  // once the plot is laid out (a replot), falling back to the plot's width before that.
  const int cell = title->outerRect().width() > 0 ? title->outerRect().width() : plot->width();
  title->setText(
      QFontMetrics(title->font())
          .elidedText(QString::fromStdString(full), Qt::ElideRight, std::max(40, cell - 8)));
}

void ProbesView::hover(size_t index, const QPoint& pixel) {
  if (index >= plots_.size()) return;
  QCustomPlot* plot = plots_[index];
  if (!plot->axisRect() || !plot->axisRect()->rect().contains(pixel)) {
    hover_->clear();
    return;
  }
  const double x = plot->xAxis->pixelToCoord(pixel.x());
  size_t row = 0, column = 0;
  if (!linesMode()) {
    const double y = plot->yAxis->pixelToCoord(pixel.y());
    if (x < -0.5 || y < -0.5) return hover_->clear();
    column = static_cast<size_t>(std::lround(x));
    row = static_cast<size_t>(std::lround(y));
  } else {
    if (index >= lines_.size() || lines_[index].series.empty()) return hover_->clear();
    const auto& f = lines_[index];
    const auto& steps = f.series.front().x;
    if (steps.empty()) return hover_->clear();
    // The probe point nearest the mouse, then the line nearest it there.
    for (size_t c = 1; c < steps.size(); ++c)
      if (std::abs(steps[c] - x) < std::abs(steps[column] - x)) column = c;
    double best = std::numeric_limits<double>::infinity();
    for (size_t s = 0; s < f.series.size(); ++s) {
      if (column >= f.series[s].y.size() || !std::isfinite(f.series[s].y[column])) continue;
      const double distance =
          std::abs(plot->yAxis->coordToPixel(f.series[s].y[column]) - pixel.y());
      if (distance < best) best = distance, row = s;
    }
  }
  hover_->setText(cellText(index, row, column));
}

bool ProbesView::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Leave) hover_->clear();  // gone when the mouse leaves a plot
  if (event->type() == QEvent::Resize) {
    auto it = std::find(plots_.begin(), plots_.end(), watched);
    if (it != plots_.end()) {
      const size_t index = static_cast<size_t>(it - plots_.begin());
      // QCustomPlot lays out and replots on its own resize, after this filter: measure then.
      QMetaObject::invokeMethod(
          this,
          [this, index] {
            fitColumnLabels(index);
            fitTitle(index);
            if (index < plots_.size()) plots_[index]->replot();
          },
          Qt::QueuedConnection);
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace fathom::gui
