// The Compare tab's chart: the table as grouped bars, or as lines along its numeric axis with
// each row's best value there (plot/axis_lines.h), and the fork parent's value to read them
// against (comparison_view_read.cpp).
#include <algorithm>
#include <cmath>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QLabel>

#include "gui/budget_choice.h"
#include "gui/comparison_view.h"
#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/screen_style.h"
#include "plot/comparison_chart.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {

void ComparisonView::buildChart() {
  note_ = new QLabel;
  note_->setWordWrap(true);
  // The table's cells as bars with their 95 % intervals: which differences stand out of the
  // seeds' noise is seen at a glance, which the table's numbers leave to mental arithmetic.
  chart_ = new plot::PlotWidget;
  chart_->setMinimumHeight(160);
  // Laid out shorter than at set-up: room for the legend above the tallest whisker again.
  connect(chart_, &QCustomPlot::afterReplot, this, [this] {
    if (plot::fit_legend_headroom(*chart_)) chart_->replot(QCustomPlot::rpQueuedReplot);
  });
  add_export_menu(chart_);
  set_figure_source(chart_, [this]() -> std::optional<plot::Figure> {
    if (!current_) return std::nullopt;
    return chartFigure();  // exported as shown
  });
}

std::optional<plot::AxisLines> ComparisonView::chartLines() const {
  if (!current_ || !lines_->isChecked()) return std::nullopt;
  return axis_lines_;
}

plot::Figure ComparisonView::chartFigure() const {
  const plot::Scale y = log_->isChecked() ? plot::Scale::Log : plot::Scale::Linear;
  if (std::optional<plot::AxisLines> lines = chartLines()) {
    plot::LineFigure figure = std::move(lines->figure);
    figure.y.scale = y;
    if (parent_) {  // a level line across the axis's values, as across the bars
      double lo = INFINITY, hi = -INFINITY;
      for (const auto& s : figure.series)
        for (double x : s.x) lo = std::min(lo, x), hi = std::max(hi, x);
      plot::LineSeries level;
      level.name = parent_->label;
      level.x = {lo, hi};
      level.y = {parent_->value, parent_->value};
      figure.series.push_back(std::move(level));
    }
    return figure;
  }
  plot::BarFigure figure = plot::comparison_bar_figure(*current_);
  figure.y.scale = y;
  if (parent_) figure.references.push_back(*parent_);
  return figure;
}

QString ComparisonView::optimaNote() const {
  if (!current_) return {};
  const std::optional<plot::AxisLines>& lines = axis_lines_;
  if (!lines) return {};
  const std::string& axis = lines->figure.x.label;
  QStringList out{QStringLiteral("Best %1%2 (the vertex of the parabola in ln(%1) through the "
                                 "best mean and its neighbours; 95 % interval over seeds: "
                                 "where the curve's slope is within noise of zero):")
                      .arg(QString::fromStdString(axis),
                           budget_->budget() ? QStringLiteral(" at this budget") : QString())};
  for (const auto& o : lines->optima) out << QString::fromStdString(o.text());
  return out.join(QStringLiteral("\n"));
}

void ComparisonView::drawChart() {
  plot::clear_plottables(*chart_);
  if (current_) plot::setup_plot(*chart_, chartFigure(), screen_style(font()));
  chart_->replot();
}

}  // namespace fathom::gui
