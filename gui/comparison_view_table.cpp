// The Compare tab's table widget: the built table's headers and cells (value, spread, n,
// diverged runs, the variant and p-value where asked for), and saving it as `fathom export
// table` writes it.
#include <QFile>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableWidget>

#include "experiments/comparison_table.h"
#include "gui/comparison_view.h"
#include "gui/file_dialog.h"
#include "plot/comparison_chart.h"

namespace fathom::gui {
namespace {

QString axis_short_name(const std::string& axis) {
  return QString::fromStdString(plot::axis_short_name(axis));
}

// A cell as the table shows it: value ± std (n), a dagger where runs diverged, the variant
// and p-value where asked for; bold where best, red where only diverged runs are.
QTableWidgetItem* table_item(const experiments::ComparisonTable& t,
                             const experiments::TableCell& cell, const QFont& bold) {
  QString text = QString::fromStdString(cell.status.empty() ? "-" : cell.status);
  if (cell.value) {
    text = QString::number(*cell.value, 'f', t.digits);
    if (cell.std) text += QStringLiteral(" \u00b1 %1").arg(*cell.std, 0, 'f', t.digits);
    if (t.show_n) text += QStringLiteral(" (n=%1)").arg(cell.used);
    if (cell.diverged) text += QStringLiteral(" \u2020");
    if (t.show_variant) text += QStringLiteral(" [%1]").arg(QString::fromStdString(cell.variant));
  }
  if (const std::string p = experiments::p_value_text(cell); !p.empty())
    text += QStringLiteral(" (%1)").arg(QString::fromStdString(p));
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(Qt::AlignCenter);
  item->setToolTip(QStringLiteral("%1 run(s): %2 with %3, %4 diverged")
                       .arg(cell.runs)
                       .arg(cell.used)
                       .arg(QString::fromStdString(t.metric))
                       .arg(cell.diverged));
  if (cell.best) item->setFont(bold);
  if (!cell.value && cell.diverged) item->setForeground(QColor(200, 40, 40));
  return item;
}

}  // namespace

// The table widget's headers and cells from the built table.
void ComparisonView::fillTable(const experiments::TableOptions& options) {
  const experiments::ComparisonTable& t = *current_;
  table_->setRowCount(static_cast<int>(t.row_labels.size()));
  table_->setColumnCount(static_cast<int>(t.col_labels.size()));
  QStringList row_labels, col_labels;
  // Headers name their axis ("norm = pre", "lr = 0.002"): the values alone leave the reader to
  // guess which axis runs down and which across.
  const QString row_axis = axis_short_name(options.rows), col_axis = axis_short_name(options.cols);
  for (const auto& r : t.row_labels) row_labels << row_axis + " = " + QString::fromStdString(r);
  for (const auto& c : t.col_labels)
    col_labels << (options.cols.empty() ? QString::fromStdString(c)
                                        : col_axis + " = " + QString::fromStdString(c));
  table_->setVerticalHeaderLabels(row_labels);
  table_->setHorizontalHeaderLabels(col_labels);
  table_->setCornerButtonEnabled(false);
  QFont bold = table_->font();
  bold.setBold(true);
  for (size_t r = 0; r < t.row_labels.size(); ++r)
    for (size_t c = 0; c < t.col_labels.size(); ++c)
      table_->setItem(static_cast<int>(r), static_cast<int>(c), table_item(t, t.cells[r][c], bold));
  // No taller than its rows: the bars below get the height a short table leaves empty.
  table_->setMaximumHeight(table_->horizontalHeader()->height() +
                           table_->verticalHeader()->length() + 2 * table_->frameWidth() +
                           table_->horizontalScrollBar()->sizeHint().height());
}

void ComparisonView::exportTable() {
  if (!current_) return;
  const QString path =
      choose_file_to_save(this, QStringLiteral("Export table"), QString(),
                          QStringLiteral("Markdown (*.md);;LaTeX (*.tex);;CSV (*.csv)"));
  if (path.isEmpty()) return;
  if (!writeTable(path)) {
    emit error(QStringLiteral("cannot write %1").arg(path));
    return;
  }
  note_->setText(note_->text() + (note_->text().isEmpty() ? "" : "\n") +
                 QStringLiteral("Table saved to %1").arg(path));
}

bool ComparisonView::writeTable(const QString& path) const {
  if (!current_) return false;
  const std::string text =
      path.endsWith(QStringLiteral(".csv"))   ? experiments::table_to_csv(*current_)
      : path.endsWith(QStringLiteral(".tex")) ? experiments::table_to_latex(*current_)
                                              : experiments::table_to_markdown(*current_);
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return false;
  return file.write(text.data(), static_cast<qint64>(text.size())) ==
         static_cast<qint64>(text.size());
}

}  // namespace fathom::gui
