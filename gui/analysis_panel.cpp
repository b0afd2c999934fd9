#include "gui/analysis_panel.h"

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/relayout_on_resize.h"
#include "gui/screen_style.h"
#include "plot/analysis_figures.h"
#include "plot/analysis_kinds.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

using json = nlohmann::json;

// A figure reads from about this width on (a beta heatmap: row labels, cells, colour scale);
// narrower, the figures stand one under the other.
constexpr int kGoodFigureWidth = 360;
constexpr int kFigureMinWidth = 260, kFigureMinHeight = 240;
constexpr int kMostTableHeight = 260;  // taller tables scroll; the figures keep the rest

QString label_at(const std::vector<std::string>& labels, size_t i) {
  return i < labels.size() ? QString::fromStdString(labels[i]) : QString::number(i);
}

QString or_default(const std::string& text, const char* fallback) {
  return text.empty() ? QString::fromLatin1(fallback) : QString::fromStdString(text);
}

}  // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent) : QWidget(parent) {
  caption_ = new QLabel;
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  grid_ = new QGridLayout;
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(caption_);
  layout->addLayout(grid_, 1);
  clear();
}

QString AnalysisPanel::caption() const { return caption_->text(); }

void AnalysisPanel::clear(const QString& why) {
  for (QCustomPlot* p : plots_) p->deleteLater();
  plots_.clear();
  figures_.clear();
  for (QTableWidget* t : tables_) t->deleteLater();
  tables_.clear();
  table_ = nullptr;
  last_hover_.clear();
  caption_->setText(why.isEmpty() ? QStringLiteral("Select a result, or compute one below.") : why);
}

void AnalysisPanel::placePlots() {
  const int n = static_cast<int>(plots_.size());
  columns_ = std::clamp(width() / kGoodFigureWidth, 1, std::max(1, n));
  for (QCustomPlot* p : plots_) grid_->removeWidget(p);
  for (QTableWidget* t : tables_) grid_->removeWidget(t);
  const int plot_rows = (n + columns_ - 1) / columns_;
  for (int i = 0; i < n; ++i) grid_->addWidget(plots_[i], i / columns_, i % columns_);
  for (int i = 0; i < static_cast<int>(tables_.size()); ++i)
    grid_->addWidget(tables_[i], plot_rows + i, 0, 1, columns_);  // under the figures
  // The figures take the height the tables leave, and share the width evenly.
  for (int r = 0; r < grid_->rowCount(); ++r) grid_->setRowStretch(r, r < plot_rows ? 1 : 0);
  for (int c = 0; c < grid_->columnCount(); ++c) grid_->setColumnStretch(c, c < columns_ ? 1 : 0);
}

void AnalysisPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const int n = static_cast<int>(plots_.size());
  if (n > 1 && std::clamp(width() / kGoodFigureWidth, 1, n) != columns_) placePlots();
}

QString AnalysisPanel::hoverText(int index, const QPoint& pixel) const {
  if (index < 0 || index >= plots_.size() || index >= static_cast<int>(figures_.size())) return {};
  const auto* h = std::get_if<plot::Heatmap>(&figures_[index]);
  const QCustomPlot* p = plots_[index];
  if (!h || !p->axisRect() || !p->axisRect()->rect().contains(pixel)) return {};
  const long col = std::lround(p->xAxis->pixelToCoord(pixel.x()));
  const long row = std::lround(p->yAxis->pixelToCoord(pixel.y()));
  if (row < 0 || col < 0 || static_cast<size_t>(row) >= h->values.size() ||
      static_cast<size_t>(col) >= h->values[row].size() || (h->lower_triangle && col > row))
    return {};
  const double value = h->values[row][col];
  if (std::isnan(value)) return {};
  return QStringLiteral("%1: %2\n%3: %4\n%5 = %6")
      .arg(or_default(h->y_label, "row"), label_at(h->row_labels, row),
           or_default(h->x_label, "column"), label_at(h->col_labels, col),
           or_default(h->colour_title, "value"), QString::number(value, 'g', 4));
}

void AnalysisPanel::hover(int index, const QPoint& pixel) {
  last_hover_ = hoverText(index, pixel);
  if (last_hover_.isEmpty())
    QToolTip::hideText();
  else  // beside the mouse, never over the cell it names
    QToolTip::showText(plots_[index]->mapToGlobal(pixel + QPoint(16, 16)), last_hover_,
                       plots_[index]);
}

void AnalysisPanel::addTable(const QStringList& header, const QList<QStringList>& rows) {
  auto* table = new QTableWidget(static_cast<int>(rows.size()), static_cast<int>(header.size()));
  table->setHorizontalHeaderLabels(header);
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int r = 0; r < rows.size(); ++r)
    for (int c = 0; c < rows[r].size() && c < header.size(); ++c)
      table->setItem(r, c, new QTableWidgetItem(rows[r][c]));
  table->resizeColumnsToContents();
  // As tall as its rows up to a limit, so the figures above keep the panel's height.
  const int rows_height = table->verticalHeader()->length() + table->horizontalHeader()->height() +
                          2 * table->frameWidth() + 4;
  table->setMaximumHeight(std::min(rows_height, kMostTableHeight));
  add_export_menu(table);
  tables_ << table;
  if (!table_) table_ = table;
}

void AnalysisPanel::showRecord(const db::AnalysisRecord& record) {
  clear();
  const QString source = QStringLiteral("analysis %1").arg(record.id);
  QString words =
      QStringLiteral("analysis %1: %2").arg(record.id).arg(QString::fromStdString(record.kind));
  if (record.run_id)
    words += QStringLiteral(" of run %1 (%2 checkpoint)")
                 .arg(*record.run_id)
                 .arg(QString::fromStdString(record.checkpoint));
  words += QStringLiteral(", took %1 s").arg(record.elapsed_s, 0, 'f', 1);
  json result;
  try {
    result = json::parse(record.result_json);
  } catch (const std::exception& e) {
    caption_->setText(words +
                      QStringLiteral("\nthe stored result is not valid JSON: %1").arg(e.what()));
    return;
  }

  // Tables first: a result that cannot be drawn (ln-scale of a Pre-LN model) still has them.
  const plot::AnalysisKind* kind = nullptr;
  try {
    kind = &plot::find_analysis_kind(record.kind, source.toStdString());
  } catch (const std::exception& e) {
    caption_->setText(words + QStringLiteral("\n%1").arg(QString::fromUtf8(e.what())));
    return;
  }
  if (kind->tables)
    for (const plot::ResultTable& t : kind->tables(result)) {
      QStringList header;
      for (const auto& h : t.header) header << QString::fromStdString(h);
      QList<QStringList> rows;
      for (const auto& row : t.rows) {
        QStringList cells;
        for (const auto& c : row) cells << QString::fromStdString(c);
        rows << cells;
      }
      addTable(header, rows);
    }
  if (kind->caption)
    if (const std::string more = kind->caption(result); !more.empty())
      words += (kind->tables ? QStringLiteral("; ") : QStringLiteral("\n")) +
               QString::fromStdString(more);

  std::vector<plot::NamedFigure> figures;
  try {
    figures = plot::analysis_figures(result, record.kind, source.toStdString());
  } catch (const std::exception& e) {
    words += QStringLiteral("\nno figure: %1").arg(QString::fromUtf8(e.what()));
  }
  const plot::Style style = screen_style(font());
  for (size_t i = 0; i < figures.size(); ++i) {
    auto* plot = new plot::PlotWidget;
    plot->setMinimumSize(kFigureMinWidth, kFigureMinHeight);
    plot->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    const plot::Figure& figure = figures[i].second;
    plot::setup_plot(*plot, figure, style);
    plot->replot();
    set_figure_source(plot, [figure]() -> std::optional<plot::Figure> { return figure; });
    add_export_menu(plot);
    plot->setMouseTracking(true);
    // A heatmap labels its rows and columns for the plot's size: laid out again on a resize.
    if (std::holds_alternative<plot::Heatmap>(figure))
      new RelayoutOnResize(plot, [this, plot, figure] {
        plot::setup_plot(*plot, figure, screen_style(font()));
        plot->replot();
      });
    const int index = static_cast<int>(i);
    connect(plot, &QCustomPlot::mouseMove, this,
            [this, index](QMouseEvent* event) { hover(index, event->pos()); });
    plots_ << plot;
    figures_.push_back(figure);
  }
  placePlots();
  caption_->setText(words);
}

}  // namespace fathom::gui

#include "moc_analysis_panel.cpp"  // moc output for analysis_panel.h: compiled in this unit
