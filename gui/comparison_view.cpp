#include "gui/comparison_view.h"

#include <set>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/comparison_table.h"
#include "gui/store_session.h"

namespace fathom::gui {
namespace {

const QString kNoColumns = QStringLiteral("(none)");

}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
  sweep_ = new QComboBox;
  rows_ = new QComboBox;
  cols_ = new QComboBox;
  metric_ = new QComboBox;
  for (auto* box : {sweep_, rows_, cols_, metric_}) box->setMinimumContentsLength(16);
  table_ = new QTableWidget;
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  auto* bar = new QHBoxLayout;
  auto add = [bar](const QString& label, QComboBox* box) {
    auto* l = new QLabel(label);
    l->setBuddy(box);
    bar->addWidget(l);
    bar->addWidget(box);
  };
  add(QStringLiteral("S&weep"), sweep_);
  add(QStringLiteral("R&ows"), rows_);
  add(QStringLiteral("&Columns"), cols_);
  add(QStringLiteral("&Metric"), metric_);
  bar->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(table_, 1);
  layout->addWidget(new QLabel(QStringLiteral(
      "mean \u00b1 std over the runs in each cell (seeds and other axes); diverged runs are counted "
      "apart; the best cell is bold")));

  connect(sweep_, &QComboBox::currentIndexChanged, this, &ComparisonView::sweepChanged);
  for (auto* box : {rows_, cols_, metric_})
    connect(box, &QComboBox::currentIndexChanged, this, &ComparisonView::redraw);
}

void ComparisonView::refill(QComboBox* box, const QStringList& items) {
  QStringList current;
  for (int i = 0; i < box->count(); ++i) current << box->itemText(i);
  if (current == items) return;
  const QString chosen = box->currentText();
  QSignalBlocker block(box);
  box->clear();
  box->addItems(items);
  box->setCurrentIndex(std::max(0, static_cast<int>(items.indexOf(chosen))));
}

void ComparisonView::setSession(StoreSession* session) {
  session_ = session;
  all_.clear();
  runs_.clear();
  tags_.clear();
  refill(sweep_, {});
  redraw();
}

void ComparisonView::setRuns(const std::vector<db::RunRecord>& runs) {
  // Polled every second: redraw only when a run, a status or a final metric changed.
  bool same = runs.size() == all_.size();
  for (size_t i = 0; same && i < runs.size(); ++i)
    same = runs[i].id == all_[i].id && runs[i].status == all_[i].status &&
           runs[i].final_metrics == all_[i].final_metrics;
  if (same) return;
  all_ = runs;
  std::set<QString> sweeps;
  for (const auto& r : runs)
    if (!r.sweep.empty()) sweeps.insert(QString::fromStdString(r.sweep));
  refill(sweep_, QStringList(sweeps.begin(), sweeps.end()));
  sweepChanged();
}

void ComparisonView::sweepChanged() {
  const std::string sweep = sweep_->currentText().toStdString();
  std::vector<db::RunRecord> runs;
  for (const auto& r : all_)
    if (!sweep.empty() && r.sweep == sweep) runs.push_back(r);
  bool same_ids = runs.size() == runs_.size();
  for (size_t i = 0; same_ids && i < runs.size(); ++i) same_ids = runs[i].id == runs_[i].id;
  runs_ = std::move(runs);
  if (!same_ids && session_) {  // tags are written once, when a sweep records its runs
    tags_.clear();
    try {
      for (const auto& r : runs_) tags_[r.id] = session_->store.tags(r.id);
    } catch (const std::exception& e) {
      emit error(describe_store_error(e));
    }
  }
  std::set<QString> axes, metrics;
  for (const auto& [run, tags] : tags_)
    for (const auto& [key, value] : tags)
      if (key.rfind("axis.", 0) == 0) axes.insert(QString::fromStdString(key));
  for (const auto& r : runs_)
    for (const auto& [name, value] : r.final_metrics) metrics.insert(QString::fromStdString(name));
  const QStringList axis_list(axes.begin(), axes.end());
  refill(rows_, axis_list);
  refill(cols_, QStringList{kNoColumns} + axis_list);
  if (cols_->currentIndex() == 0 && axis_list.size() > 1 && rows_->currentIndex() == 0) {
    QSignalBlocker block(cols_);
    cols_->setCurrentIndex(2);  // a two-axis sweep opens as a grid
  }
  refill(metric_, QStringList(metrics.begin(), metrics.end()));
  if (metric_->findText("valid_ppl") >= 0 && metric_->currentIndex() == 0) {
    QSignalBlocker block(metric_);
    metric_->setCurrentIndex(metric_->findText("valid_ppl"));
  }
  redraw();
}

bool ComparisonView::choose(const QString& sweep, const QString& rows, const QString& cols,
                            const QString& metric) {
  const int s = sweep_->findText(sweep);
  if (s < 0) return false;
  sweep_->setCurrentIndex(s);
  const int r = rows_->findText(rows), c = cols_->findText(cols.isEmpty() ? kNoColumns : cols),
            m = metric_->findText(metric);
  if (r < 0 || c < 0 || m < 0) return false;
  rows_->setCurrentIndex(r);
  cols_->setCurrentIndex(c);
  metric_->setCurrentIndex(m);
  return true;
}

void ComparisonView::redraw() {
  const std::string col_key = cols_->currentText() == kNoColumns ? "" : cols_->currentText().toStdString();
  const std::string metric = metric_->currentText().toStdString();
  const ComparisonTable t =
      compare_runs(runs_, tags_, rows_->currentText().toStdString(), col_key, metric);
  table_->clear();
  table_->setRowCount(static_cast<int>(t.rows.size()));
  table_->setColumnCount(static_cast<int>(t.cols.size()));
  QStringList row_labels, col_labels;
  for (const auto& r : t.rows) row_labels << QString::fromStdString(r);
  for (const auto& c : t.cols) col_labels << (c.empty() ? QString::fromStdString(metric) : QString::fromStdString(c));
  table_->setVerticalHeaderLabels(row_labels);
  table_->setHorizontalHeaderLabels(col_labels);
  table_->setCornerButtonEnabled(false);

  const bool higher_better = metric.find("bleu") != std::string::npos;
  int best_r = -1, best_c = -1;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < t.cols.size(); ++c) {
      const auto& cell = t.cells[r][c];
      QString text = cell.runs ? QString::number(cell.mean, 'g', 4) : QStringLiteral("-");
      if (cell.runs > 1) text += QStringLiteral(" \u00b1 %1").arg(cell.std, 0, 'g', 2);
      if (cell.diverged) text += QStringLiteral("  (%1 diverged)").arg(cell.diverged);
      auto* item = new QTableWidgetItem(text);
      item->setTextAlignment(Qt::AlignCenter);
      item->setToolTip(QStringLiteral("%1 run(s) with %2, %3 diverged, %4 without it yet")
                           .arg(cell.runs).arg(QString::fromStdString(metric)).arg(cell.diverged).arg(cell.missing));
      table_->setItem(static_cast<int>(r), static_cast<int>(c), item);
      if (!cell.runs) continue;
      const auto& best = best_r < 0 ? cell : t.cells[best_r][best_c];
      if (best_r < 0 || (higher_better ? cell.mean > best.mean : cell.mean < best.mean)) {
        best_r = static_cast<int>(r);
        best_c = static_cast<int>(c);
      }
    }
  }
  if (best_r >= 0) {
    QFont bold = table_->font();
    bold.setBold(true);
    table_->item(best_r, best_c)->setFont(bold);
  }
}

}  // namespace fathom::gui
