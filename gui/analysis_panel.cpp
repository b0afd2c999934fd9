#include "gui/analysis_panel.h"

#include <cmath>

#include <qcustomplot.h>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/screen_style.h"
#include "plot/analysis_figures.h"
#include "plot/analysis_kinds.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

using json = nlohmann::json;

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

void AnalysisPanel::clear() {
  for (QCustomPlot* p : plots_) p->deleteLater();
  plots_.clear();
  for (QTableWidget* t : tables_) t->deleteLater();
  tables_.clear();
  table_ = nullptr;
  caption_->setText(QStringLiteral("Select a result, or compute one below."));
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
  add_export_menu(table);
  tables_ << table;
  if (!table_) table_ = table;
  grid_->addWidget(table, static_cast<int>(tables_.size()), 0, 1, 2);  // under the plots
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
    plot->setMinimumSize(360, 300);
    const plot::Figure& figure = figures[i].second;
    plot::setup_plot(*plot, figure, style);
    plot->replot();
    set_figure_source(plot, [figure]() -> std::optional<plot::Figure> { return figure; });
    add_export_menu(plot);
    plots_ << plot;
    grid_->addWidget(plot, 0, static_cast<int>(i));
  }
  caption_->setText(words);
}

}  // namespace fathom::gui

#include "moc_analysis_panel.cpp"  // moc output for analysis_panel.h: compiled in this unit
