#include "gui/curve_plot.h"

#include <cmath>
#include <limits>

#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "plot/render.h"

namespace fathom::gui {

CurvePlot::CurvePlot(QWidget* parent) : QWidget(parent) {
  plot_ = new QCustomPlot;
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMinimumSize(260, 180);
  // On screen, frame time over print quality: a decimated min/max envelope drawn antialiased
  // along a dash pattern is what makes a replot slow (bench_dashboard). Exports re-draw the
  // figure on a fresh plot in full quality (export_targets.h).
  plot_->setPlottingHint(QCP::phFastPolylines, true);
  plot_->setNotAntialiasedElements(QCP::aePlottables);
  readout_ = new QLabel(QStringLiteral(" "));
  readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(plot_, 1);
  layout->addWidget(readout_);

  // The renderer rebuilds the axes on every update, so zoom is noticed from the mouse, not
  // from the axes' range signals.
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { user_zoomed_ = true; });
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) user_zoomed_ = true;
    showReadout(e);
  });
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });

  add_export_menu(plot_);
  set_figure_source(plot_, [this]() -> std::optional<plot::Figure> {
    if (figure_.curves.empty()) return std::nullopt;
    plot::CurveFigure shown = figure_;
    if (user_zoomed_) {  // export what the user zoomed to
      shown.x.min = plot_->xAxis->range().lower;
      shown.x.max = plot_->xAxis->range().upper;
      shown.y.min = plot_->yAxis->range().lower;
      shown.y.max = plot_->yAxis->range().upper;
    }
    return shown;
  });
}

int CurvePlot::graphCount() const { return plot_->graphCount(); }
QString CurvePlot::readoutText() const { return readout_->text().trimmed(); }

void CurvePlot::setFigure(plot::CurveFigure figure) {
  QCPRange x, y;
  const bool keep = user_zoomed_ && plot_->xAxis && plot_->yAxis;
  if (keep) {
    x = plot_->xAxis->range();
    y = plot_->yAxis->range();
  }
  plot::Style style;
  style.font_pt = 9;  // a screen, not a two-column paper
  style.title_pt = 10;
  style.decimation_buckets = std::max(200, plot_->width());  // about one bucket per pixel
  style.font_families.prepend(font().family());
  plot::setup_curve_figure(*plot_, figure, style);
  // A dash pattern along a decimated min/max envelope is unreadable and slow to paint (QCP
  // draws dashed lines segment by segment): long curves are solid on screen, told apart by
  // colour and markers. Exports keep the dashes.
  for (int g = 0; g < plot_->graphCount(); ++g) {
    QCPGraph* graph = plot_->graph(g);
    if (graph->dataCount() > 1000 && graph->pen().style() != Qt::SolidLine) {
      QPen pen = graph->pen();
      pen.setStyle(Qt::SolidLine);
      graph->setPen(pen);
    }
  }
  if (keep) {
    plot_->xAxis->setRange(x);
    plot_->yAxis->setRange(y);
  }
  if (!legend_ && plot_->legend) plot_->legend->setVisible(false);
  plot_->replot(QCustomPlot::rpQueuedReplot);
  figure_ = std::move(figure);
}

void CurvePlot::setLegendVisible(bool visible) {
  legend_ = visible;
  if (plot_->legend) plot_->legend->setVisible(visible && plot_->legend->itemCount() > 0);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void CurvePlot::resetZoom() {
  user_zoomed_ = false;
  plot_->rescaleAxes();
  plot_->replot();
}

void CurvePlot::showReadout(QMouseEvent* event) {
  if (!plot_->xAxis) return;
  const double mx = plot_->xAxis->pixelToCoord(event->pos().x());
  // The nearest drawn point, in pixels, over the legend's curves (not the faint raw ones).
  double best = std::numeric_limits<double>::infinity();
  QString text = QStringLiteral(" ");
  for (int g = 0; g < plot_->graphCount(); ++g) {
    QCPGraph* graph = plot_->graph(g);
    if (!plot_->legend || !plot_->legend->hasItemWithPlottable(graph) || graph->data()->isEmpty())
      continue;
    auto it = graph->data()->findBegin(mx, true);
    for (int k = 0; k < 2 && it != graph->data()->constEnd(); ++k, ++it) {
      if (!std::isfinite(it->value)) continue;
      const double dx = graph->keyAxis()->coordToPixel(it->key) - event->pos().x();
      const double dy = graph->valueAxis()->coordToPixel(it->value) - event->pos().y();
      const double d = std::hypot(dx, dy);
      if (d < best) {
        best = d;
        text = QStringLiteral("%1   step %2   %3")
                   .arg(graph->name())
                   .arg(it->key, 0, 'f', 0)
                   .arg(it->value, 0, 'g', 5);
      }
    }
  }
  readout_->setText(best < 40 ? text : QStringLiteral(" "));
}

}  // namespace fathom::gui
