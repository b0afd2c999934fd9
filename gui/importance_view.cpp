#include "gui/importance_view.h"

#include <algorithm>
#include <set>

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "experiments/text_table.h"
#include "gui/budget_choice.h"
#include "gui/draw_when_shown.h"
#include "gui/export_menu.h"
#include "gui/relayout_on_resize.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/split_shares.h"
#include "gui/store_session.h"
#include "gui/where_box.h"
#include "plot/importance_figure.h"
#include "plot/plot_widget.h"

namespace fathom::gui {

ImportanceView::ImportanceView(QWidget* parent)
    : QWidget(parent), worker_(new StoreWorker(this)), when_shown_(new DrawWhenShown(this)) {
  connect(worker_, &StoreWorker::failed, this, &ImportanceView::error);
  QHBoxLayout* bar = buildChoiceBar();
  QSplitter* split = buildResults();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  layout->addWidget(note_);
  connectControls();
  note_->setText(QStringLiteral(
      "Open a store with a sweep over two or more values of an axis (seeds are replicates)."));
}

// Which sweep, which metric and value of its runs, and which runs (the where box).
QHBoxLayout* ImportanceView::buildChoiceBar() {
  sweep_ = new QComboBox;
  sweep_->setMinimumContentsLength(16);
  metric_ = new QComboBox;
  metric_->setMinimumContentsLength(12);
  metric_->setToolTip(
      QStringLiteral("a final metric of the sweep's runs, or diverged (1 for a diverged run, 0 "
                     "for a finished one)"));
  value_ = new QComboBox;  // each item's data: its experiments::RunValue
  value_->addItem(QStringLiteral("best checkpoint"), int(experiments::RunValue::Final));
  value_->addItem(QStringLiteral("best over training"), int(experiments::RunValue::Best));
  value_->addItem(QStringLiteral("at the end"), int(experiments::RunValue::Last));
  value_->setToolTip(QStringLiteral("each run's value of the metric (the exports' --value)"));
  auto* bar = new QHBoxLayout;
  add_sweep_choosers(*bar, sweep_, metric_, value_);
  budget_ = new BudgetChoice;
  bar->addWidget(budget_);
  where_ = add_where_box(*bar);
  return bar;
}

// The chart beside its table of shares, and the notes under both.
QSplitter* ImportanceView::buildResults() {
  plot_ = new plot::PlotWidget;
  plot_->setMinimumHeight(220);
  new RelayoutOnResize(plot_, [this] { relayout(); });
  add_export_menu(plot_);  // drawn as shown (no figure JSON behind it)
  table_ = new QTableWidget;
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  add_export_menu(table_);
  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(plot_);
  split->addWidget(table_);
  // Room for the table's names and shares on a laptop's 1100 pixels, the chart keeps the rest.
  keep_split_shares(split, {55, 45});
  return split;
}

void ImportanceView::connectControls() {
  connect(sweep_, &QComboBox::currentTextChanged, this, [this] {
    fillMetrics();
    redraw();
  });
  connect(metric_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  connect(value_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(budget_, &BudgetChoice::changed, this, [this] { redraw(); });
  connect(where_, &QLineEdit::editingFinished, this, [this] { redraw(); });
}

void ImportanceView::setStore(StoreSession* session, const QString& location) {
  when_shown_->cancel();  // runs of the last store
  session_ = session;
  worker_->setDatabase(session ? location : QString());
  ++asked_;  // a read of the last store is not shown
  signature_.clear();
  if (!session) {
    runs_.clear();
    const QSignalBlocker block_sweep(sweep_), block_metric(metric_);
    sweep_->clear();
    metric_->clear();
    shown_.reset();
  }
}

void ImportanceView::showRuns(const std::vector<db::RunRecord>& all,
                              const std::vector<db::RunRecord>&) {
  // Final metrics come with a status change; at a budget a running run counts once it passed
  // it, so its updates do too.
  const std::string signature =
      budget_->budget() ? runs_signature(all) : runs_status_signature(all);
  if (signature == signature_) return;
  // Read again in the worker for every finished run: not while the tab is out of sight.
  if (when_shown_->defer(signature, [&] { return [this, all] { showRuns(all, {}); }; })) return;
  signature_ = signature;
  runs_ = all;
  std::set<QString> sweeps;
  for (const auto& r : runs_)
    if (!r.sweep.empty()) sweeps.insert(QString::fromStdString(r.sweep));
  const QString current = sweep_->currentText().isEmpty() ? wanted_sweep_ : sweep_->currentText();
  {
    const QSignalBlocker block(sweep_);
    sweep_->clear();
    for (const auto& s : sweeps) sweep_->addItem(s);
    if (sweeps.count(current)) sweep_->setCurrentText(current);
  }
  fillMetrics();
  redraw();
}

void ImportanceView::fillMetrics() {
  const std::string sweep = sweep_->currentText().toStdString();
  std::set<std::string> names;
  for (const auto& r : runs_)
    if (r.sweep == sweep)
      for (const auto& [name, value] : r.final_metrics) names.insert(name);
  QStringList items;
  if (names.erase(db::metric::kValidLoss)) items << QString::fromStdString(db::metric::kValidLoss);
  for (const auto& name : names) items << QString::fromStdString(name);
  items << QString::fromUtf8(experiments::kDivergedMetric);
  const QString current =
      metric_->currentText().isEmpty() ? wanted_metric_ : metric_->currentText();
  const QSignalBlocker block(metric_);
  metric_->clear();
  metric_->addItems(items);
  if (items.contains(current)) metric_->setCurrentText(current);
}

QStringList ImportanceView::metricChoices() const {
  QStringList items;
  for (int i = 0; i < metric_->count(); ++i) items << metric_->itemText(i);
  return items;
}

bool ImportanceView::choose(const QString& sweep, const QString& metric, const QString& where) {
  if (sweep_->findText(sweep) < 0) return false;
  where_->setText(where);
  sweep_->setCurrentText(sweep);  // refills the metrics
  if (metric_->findText(metric) < 0) return false;
  metric_->setCurrentText(metric);
  redraw();
  waitForResults();
  return shown_.has_value();
}

void ImportanceView::waitForResults() const { worker_->waitIdle(); }

bool ImportanceView::reading() const { return worker_->busy(); }

QString ImportanceView::noteText() const { return note_->text(); }

void ImportanceView::saveSettings(QSettings& settings) const {
  settings.setValue("importance/sweep",
                    sweep_->currentText().isEmpty() ? wanted_sweep_ : sweep_->currentText());
  settings.setValue("importance/metric",
                    metric_->currentText().isEmpty() ? wanted_metric_ : metric_->currentText());
  settings.setValue("importance/value", value_->currentIndex());
  settings.setValue("importance/where", where_->text());
  budget_->save(settings, QStringLiteral("importance/at"));
}

void ImportanceView::restoreSettings(const QSettings& settings) {
  const QSignalBlocker block(value_);
  value_->setCurrentIndex(std::clamp(settings.value("importance/value", 0).toInt(), 0, 2));
  where_->setText(settings.value("importance/where").toString());
  wanted_sweep_ = settings.value("importance/sweep").toString();
  wanted_metric_ = settings.value("importance/metric").toString();
  budget_->restore(settings, QStringLiteral("importance/at"));
}

void ImportanceView::fillTable() {
  const experiments::TextTable t = experiments::hparam_importance_table(*shown_);
  table_->setColumnCount(static_cast<int>(t.header.size()));
  table_->setRowCount(static_cast<int>(t.rows.size()));
  QStringList header;
  for (const auto& h : t.header) header << QString::fromStdString(h);
  header.last() = QStringLiteral("share of V");  // "of the settings' variance": the chart says so
  table_->setHorizontalHeaderLabels(header);
  // The shares beside the names, where a narrow table shows them; the variances after.
  QHeaderView* columns = table_->horizontalHeader();
  if (columns->visualIndex(2) != 1) columns->moveSection(columns->visualIndex(2), 1);
  for (size_t r = 0; r < t.rows.size(); ++r)
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      auto* item = new QTableWidgetItem(QString::fromStdString(t.rows[r][c]));
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      // A term by its bar's name ("lr x norm/init"), its keys in full in the tooltip.
      if (c == 0 && r < shown_->terms.size()) {
        item->setToolTip(item->text());
        item->setText(QString::fromStdString(plot::importance_term_label(shown_->terms[r].axes)));
      }
      table_->setItem(static_cast<int>(r), static_cast<int>(c), item);
    }
}

void ImportanceView::relayout() {
  if (!shown_) return;
  plot::setup_importance_chart(*plot_, plot::importance_figure(*shown_), screen_style(font()));
  plot_->replot();
}

void ImportanceView::redraw() {
  ++asked_;  // a read of older choices is not shown
  shown_.reset();
  plot::clear_plottables(*plot_);
  plot_->clearItems();
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  if (!session_ || sweep_->currentText().isEmpty() || metric_->currentText().isEmpty()) {
    plot_->replot();
    return;
  }
  value_->setEnabled(!budget_->budget());  // at a budget each run is read where it stood then
  if (const QString problem = budget_->problem(); !problem.isEmpty()) {
    plot_->replot();
    note_->setText(problem);
    return;
  }
  plot_->replot();
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  // The choices are taken when the read is sent: a later change replaces a read not yet sent.
  worker_->request([this]() -> StoreWorker::Job {
    return read_then_show<experiments::HparamImportance>(
        [sweep = sweep_->currentText().toStdString(), metric = metric_->currentText().toStdString(),
         reading =
             budget_->reading(static_cast<experiments::RunValue>(value_->currentData().toInt())),
         where = where_->text().toStdString()](const db::Store& store) {
          return experiments::load_hparam_importance(store, sweep, metric, reading, where);
        },
        [this, asked = asked_](const auto& get) {
          if (asked == asked_) showRead(get);
        });
  });
}

void ImportanceView::showRead(const std::function<experiments::HparamImportance&()>& get) {
  try {
    shown_ = std::move(get());
  } catch (const std::exception& e) {
    if (auto bad_filter = where_error(e)) {
      note_->setText(*bad_filter);
      return;
    }
    // A sweep with one value per axis, or a setting no run has finished yet, is what the
    // sweep is now, not a store error: said under the chart.
    if (const auto* bad = dynamic_cast<const InputError*>(&e)) {
      QString text = QString::fromStdString(bad->message());
      if (bad->field() == "--metric")  // a setting without a value: part of the grid may do
        text += QStringLiteral(
            " (Where keeps part of the sweep: a grid with every combination, e.g. one depth)");
      note_->setText(text);
      return;
    }
    note_->setText(describe_store_error(e));
    emit error(describe_store_error(e));
    return;
  }
  relayout();
  fillTable();
  QStringList notes;
  for (const auto& n : shown_->notes) notes << QString::fromStdString(n);
  note_->setText(notes.join(QStringLiteral("\n")));
}

}  // namespace fathom::gui

#include "moc_importance_view.cpp"  // moc output for importance_view.h: compiled in this unit
