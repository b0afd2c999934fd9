#include "gui/comparison_view.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/util/same_value.h"
#include "db/fork_tags.h"
#include "db/metric_names.h"
#include "db/run_status.h"
#include "experiments/comparison_table.h"
#include "experiments/value_at_budget.h"
#include "gui/budget_choice.h"
#include "gui/draw_when_shown.h"
#include "gui/export_menu.h"
#include "gui/export_targets.h"
#include "gui/file_dialog.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/split_shares.h"
#include "gui/store_session.h"
#include "gui/verdicts_window.h"
#include "gui/where_box.h"
#include "plot/comparison_chart.h"
#include "plot/plot_widget.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

// Why the view shows no table: the line under an empty table and bare axes.
QString why_no_table(const QString& sweep, const std::vector<db::RunRecord>& runs, bool has_axis,
                     bool has_metric) {
  if (sweep.isEmpty())
    return QStringLiteral(
        "No sweep in this store: the table compares a sweep's runs (fathom sweep FILE).");
  if (!has_metric) {
    int active = 0;
    for (const auto& r : runs) active += db::status::is_active(r.status) ? 1 : 0;
    return QStringLiteral(
               "No run of sweep %1 has a final metric yet (%2 of its %3 runs queued or "
               "running): the table fills in as they finish.")
        .arg(sweep)
        .arg(active)
        .arg(runs.size());
  }
  if (!has_axis)
    return QStringLiteral(
               "Sweep %1 varies no key its runs record as an axis: nothing to compare "
               "along.")
        .arg(sweep);
  return QStringLiteral("No run of sweep %1 has the chosen metric.").arg(sweep);
}

const QString kNoColumns = QStringLiteral("(none)");
const QString kNoRow = QStringLiteral("(none)");
// Who reads the runs' values, as an error about the budget names it.

// "axis.model.norm" -> "model.norm" (the drop-downs show config keys, not tag names)
std::string strip_axis(const QString& text) {
  const std::string key = text.toStdString();
  return key.rfind("axis.", 0) == 0 ? key.substr(5) : key;
}

// Every key of a chosen axis (each part of a zip group) is one of the run's axis tags.
bool has_table_axis(const experiments::TableRun& t, const std::string& axis) {
  for (const auto& part : QString::fromStdString(axis).split(QLatin1Char('+')))
    if (!t.axes.count(part.toStdString())) return false;
  return true;
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent), worker_(new StoreWorker(this)), when_shown_(new DrawWhenShown(this)) {
  connect(worker_, &StoreWorker::failed, this, &ComparisonView::error);
  buildTable();
  // Two rows: what the table is (sweep, rows, columns, metric), then how its cells are made;
  // one row of all of them needed 1188 px, more than a laptop's window.
  QHBoxLayout* bar = buildChoiceBar();
  QHBoxLayout* options_bar = buildOptionsBar();
  buildChart();
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(table_);
  split->addWidget(chart_);
  keep_split_shares(split, {1, 2});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addLayout(options_bar);
  layout->addWidget(split, 1);
  layout->addWidget(note_);

  connect(sweep_, &QComboBox::currentIndexChanged, this, &ComparisonView::sweepChanged);
  for (auto* box : {rows_, cols_, metric_, versus_})
    connect(box, &QComboBox::currentIndexChanged, this, &ComparisonView::redraw);
  connect(best_, &QCheckBox::toggled, this, &ComparisonView::redraw);
  connect(best_variant_, &QCheckBox::toggled, this, &ComparisonView::redraw);
  connect(budget_, &BudgetChoice::changed, this, &ComparisonView::redraw);
  connect(log_, &QCheckBox::toggled, this, &ComparisonView::drawChart);  // the table stays
  connect(lines_, &QCheckBox::toggled, this, &ComparisonView::drawChart);
}

void ComparisonView::saveSettings(QSettings& settings) const {
  settings.setValue("compare/logY", log_->isChecked());
  settings.setValue("compare/lines", lines_->isChecked());
  budget_->save(settings, QStringLiteral("compare/at"));
}

void ComparisonView::restoreSettings(const QSettings& settings) {
  log_->setChecked(settings.value("compare/logY", false).toBool());
  lines_->setChecked(settings.value("compare/lines", true).toBool());
  budget_->restore(settings, QStringLiteral("compare/at"));
}

// The choices of what is tabled, and the table (exported as `fathom export table` does).
void ComparisonView::buildTable() {
  sweep_ = new QComboBox;
  rows_ = new QComboBox;
  cols_ = new QComboBox;
  metric_ = new QComboBox;
  for (auto* box : {sweep_, rows_, cols_, metric_}) box->setMinimumContentsLength(16);
  table_ = new QTableWidget;
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Exported by `fathom export table`'s renderers (bold best, ± std, daggers), not cell text.
  add_export_menu(table_);
  set_table_source(table_, [this](const std::string& format) {
    if (!current_) return std::string();
    return format == "csv"   ? experiments::table_to_csv(*current_)
           : format == "tex" ? experiments::table_to_latex(*current_)
                             : experiments::table_to_markdown(*current_);
  });
}

// The first row: sweep, rows, columns, metric.
QHBoxLayout* ComparisonView::buildChoiceBar() {
  auto* bar = new QHBoxLayout;
  add_labelled(*bar, QStringLiteral("S&weep"), sweep_);
  add_labelled(*bar, QStringLiteral("R&ows"), rows_);
  add_labelled(*bar, QStringLiteral("&Columns"), cols_);
  add_labelled(*bar, QStringLiteral("&Metric"), metric_);
  bar->addStretch();
  return bar;
}

// The second row: how the cells are made (best over training, best variant), the row the
// others are tested against, and the export.
QHBoxLayout* ComparisonView::buildOptionsBar() {
  auto* options_bar = new QHBoxLayout;
  best_ = new QCheckBox(QStringLiteral("&Best over training"));
  best_->setToolTip(
      QStringLiteral("each run's best value of the metric over its curve (lowest "
                     "loss or perplexity, highest BLEU) instead of its final value"));
  options_bar->addWidget(best_);
  best_variant_ = new QCheckBox(QStringLiteral("Best &variant"));
  best_variant_->setToolTip(
      QStringLiteral("where a cell's runs differ in another axis (e.g. the learning rate), show "
                     "the variant with the best mean over its seeds, named in the cell, instead "
                     "of pooling them"));
  options_bar->addWidget(best_variant_);
  budget_ = new BudgetChoice;
  options_bar->addSpacing(12);
  options_bar->addWidget(budget_);
  versus_ = new QComboBox;
  versus_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  versus_->addItem(kNoRow);
  versus_->setToolTip(
      QStringLiteral("test every other row against this one, column by column: Welch's t-test "
                     "over the seeds, p-values Holm-adjusted over the table's tests"));
  auto* versus_label = new QLabel(QStringLiteral("&Test against"));
  versus_label->setBuddy(versus_);
  options_bar->addSpacing(12);
  options_bar->addWidget(versus_label);
  options_bar->addWidget(versus_);
  verdicts_ = new QPushButton(QStringLiteral("Ver&dicts..."));
  verdicts_->setToolTip(
      QStringLiteral("the tests against this row as a study reports them (`fathom export "
                     "verdicts`): one Holm family, the seeds each inconclusive test would need "
                     "and, for BLEU and perplexity, the test over the seeds and the test set at "
                     "once"));
  verdicts_->setEnabled(false);
  options_bar->addWidget(verdicts_);
  connect(verdicts_, &QPushButton::clicked, this, &ComparisonView::openVerdicts);
  log_ = new QCheckBox(QStringLiteral("Lo&g y"));
  log_->setToolTip(
      QStringLiteral("the chart's values on a logarithmic axis (perplexities that differ by "
                     "orders of magnitude); a cell at or below 0 then has no bar or point"));
  options_bar->addSpacing(12);
  options_bar->addWidget(log_);
  lines_ = new QCheckBox(QStringLiteral("Li&nes"));
  lines_->setChecked(true);
  lines_->setToolTip(
      QStringLiteral("where the columns (or the rows of a one-column table) are three or more "
                     "numbers -- depths, widths, rates -- draw each row as a line along them, "
                     "with its best value there: the vertex of the parabola in ln(x) through "
                     "the best mean and its two neighbours (dashed), with a 95 % interval over "
                     "seeds: where the curve's slope is within noise of zero (`fathom export plot "
                     "budgets` at a budget); else bars"));
  options_bar->addWidget(lines_);
  options_bar->addStretch();
  auto* export_button = new QPushButton(QStringLiteral("&Export..."));
  export_button->setToolTip(QStringLiteral("Save the table as Markdown, LaTeX (booktabs) or CSV"));
  options_bar->addWidget(export_button);
  connect(export_button, &QPushButton::clicked, this, &ComparisonView::exportTable);
  return options_bar;
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
  when_shown_->cancel();  // runs of the last store
  session_ = session;
  worker_->setDatabase(session ? QString::fromStdString(session->store.location()) : QString());
  ++asked_;  // a read of the last store is not shown
  all_.clear();
  runs_.clear();
  tags_.clear();
  axis_choices_.clear();
  layout_.clear();
  fork_origin_.reset();
  tags_pending_ = false;
  ++tags_asked_;  // a read of the last store's tags is not taken
  refill(sweep_, {});
  redraw();
}

void ComparisonView::showRuns(const std::vector<db::RunRecord>& all,
                              const std::vector<db::RunRecord>&) {
  if (sameRuns(all)) return;
  // A least budget (drawn on the dashboard) moves as runs finish: found again out of sight.
  if (read_at_ && (read_at_->least || read_at_->found_least)) return setRuns(all);
  if (!when_shown_->defer(runs_status_signature(all),
                          [&] { return [this, all] { setRuns(all); }; }))
    setRuns(all);
}

// Polled every second: redraw only when a run, a status or a final metric changed (a NaN one,
// a diverged run's, is the same NaN: == said it changed at every poll), or at a budget where a
// running run passed it, its updates.
bool ComparisonView::sameRuns(const std::vector<db::RunRecord>& runs) const {
  const bool at = budget_->budget().has_value();
  return std::equal(runs.begin(), runs.end(), all_.begin(), all_.end(), [at](auto& a, auto& b) {
    return a.id == b.id && a.status == b.status && (!at || a.updates == b.updates) &&
           same_values(a.final_metrics, b.final_metrics);
  });
}

void ComparisonView::setRuns(const std::vector<db::RunRecord>& runs) {
  if (sameRuns(runs)) return;
  all_ = runs;
  std::set<QString> sweeps;
  for (const auto& r : runs)
    if (!r.sweep.empty()) sweeps.insert(QString::fromStdString(r.sweep));
  refill(sweep_, QStringList(sweeps.begin(), sweeps.end()));
  if (const int wanted = sweep_->findText(wanted_sweep_); wanted >= 0) {
    QSignalBlocker block(sweep_);
    sweep_->setCurrentIndex(wanted);
    wanted_sweep_.clear();
  }
  sweepChanged();
}

void ComparisonView::showSweep(const QString& sweep) {
  wanted_sweep_ = sweep;
  if (const int index = sweep_->findText(sweep); index >= 0) {
    wanted_sweep_.clear();
    sweep_->setCurrentIndex(index);
  }
}

void ComparisonView::sweepChanged() {
  const std::string sweep = sweep_->currentText().toStdString();
  std::vector<db::RunRecord> runs;
  for (const auto& r : all_)
    if (!sweep.empty() && r.sweep == sweep) runs.push_back(r);
  bool same_ids = runs.size() == runs_.size();
  for (size_t i = 0; same_ids && i < runs.size(); ++i) same_ids = runs[i].id == runs_[i].id;
  runs_ = std::move(runs);
  // Tags are written once, when a sweep records its runs: read, and what they say found, only
  // when its runs are others (a poll of a sweep of thousands of runs reads and scans none),
  // in the worker thread; the axes are offered once they are read.
  if (!same_ids && session_) return readSweepTags();
  if (!tags_pending_) offerAxes();
}

void ComparisonView::offerAxes() {
  std::set<QString> metrics;
  const QStringList& layout = layout_;
  for (const auto& r : runs_)
    for (const auto& [name, value] : r.final_metrics) metrics.insert(QString::fromStdString(name));
  const QStringList& axis_list = axis_choices_;
  refill(rows_, axis_list);
  refill(cols_, QStringList{kNoColumns} + axis_list);
  if (cols_->currentIndex() == 0 && rows_->currentIndex() == 0) {
    // A fresh choice opens as `fathom report` tables the sweep: its first axis group by its
    // second (a zip of encoder and decoder layers one axis, not a diagonal of one by the other);
    // without a recorded layout, a two-axis sweep as a grid.
    QSignalBlocker block_rows(rows_), block_cols(cols_);
    if (!layout.isEmpty() && rows_->findText(layout[0]) >= 0) {
      rows_->setCurrentIndex(rows_->findText(layout[0]));
      cols_->setCurrentIndex(layout.size() > 1 ? std::max(0, cols_->findText(layout[1])) : 0);
    } else if (axis_list.size() > 1) {
      cols_->setCurrentIndex(2);
    }
  }
  refill(metric_, QStringList(metrics.begin(), metrics.end()));
  if (metric_->findText(QString::fromStdString(db::metric::kValidPpl)) >= 0 &&
      metric_->currentIndex() == 0) {
    QSignalBlocker block(metric_);
    metric_->setCurrentIndex(metric_->findText(QString::fromStdString(db::metric::kValidPpl)));
  }
  redraw();
}

void ComparisonView::readSweepTags() {
  tags_pending_ = true;
  ++tags_asked_;
  redraw();  // the last sweep's table cleared
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  std::vector<int64_t> ids;
  for (const auto& r : runs_) ids.push_back(r.id);
  worker_->request([this, ids = std::move(ids), asked = tags_asked_]() -> StoreWorker::Job {
    return read_then_show<SweepTags>(
        [ids](const db::Store& store) { return sweepTags(store, ids); },
        [this, asked](const auto& get) {
          if (asked != tags_asked_) return;  // the sweep's runs changed again: read again
          tags_pending_ = false;
          SweepTags found;
          try {
            found = std::move(get());
          } catch (const std::exception& e) {
            emit error(describe_store_error(e));
          }
          tags_ = std::move(found.tags);
          axis_choices_ = std::move(found.axes);
          layout_ = std::move(found.layout);
          fork_origin_ = found.fork_origin;
          offerAxes();
        });
  });
}

bool ComparisonView::choose(const QString& sweep, const QString& rows, const QString& cols,
                            const QString& metric) {
  const int s = sweep_->findText(sweep);
  if (s < 0) return false;
  sweep_->setCurrentIndex(s);
  waitForResults();  // its runs' tags, read in the worker, give the axes
  // Axis names with or without the tags' "axis." prefix.
  const int r = rows_->findText(QString::fromStdString(strip_axis(rows))),
            c = cols_->findText(cols.isEmpty() ? kNoColumns
                                               : QString::fromStdString(strip_axis(cols))),
            m = metric_->findText(metric);
  if (r < 0 || c < 0 || m < 0) return false;
  rows_->setCurrentIndex(r);
  cols_->setCurrentIndex(c);
  metric_->setCurrentIndex(m);
  waitForResults();
  return true;
}

void ComparisonView::waitForResults() const { worker_->waitIdle(); }

bool ComparisonView::reading() const { return worker_->busy(); }

void ComparisonView::redraw() {
  ++asked_;  // a read of older choices is not shown
  experiments::TableOptions options = tableOptions();
  // Every choice's change comes here: what the read is of is the choices of now.
  auto runs = std::make_shared<std::vector<experiments::TableRun>>(tableRuns(options));
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  current_.reset();
  axis_lines_.reset();
  parent_.reset();
  verdicts_->setEnabled(false);
  plot::clear_plottables(*chart_);
  chart_->replot();
  // At a budget a run's best over training is no question (the CLI's --at excludes --value).
  best_->setEnabled(!options.at);
  if (tags_pending_) return;  // offerAxes() redraws once the sweep's tags are read
  if (options.rows.empty() || options.metric.empty() || runs->empty()) {
    note_->setText(
        why_no_table(sweep_->currentText(), runs_, !options.rows.empty(), !options.metric.empty()));
    announceBudget(std::nullopt);
    return;
  }
  if (const QString problem = budget_->problem(); !problem.isEmpty()) {
    note_->setText(problem);
    announceBudget(std::nullopt);
    return;
  }
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  // A later change replaces a read not yet sent.
  worker_->request([this, options, runs]() -> StoreWorker::Job {
    return read_then_show<TableRead>(
        [options, runs, parent = parentRun(options),
         versus = versus_->currentIndex() > 0 ? versus_->currentText().toStdString()
                                              : std::string()](const db::Store& store) {
          return readTable(store, options, std::move(*runs), parent, versus);
        },
        [this, asked = asked_](const auto& get) {
          if (asked == asked_) showTable(get);
        });
  });
}

void ComparisonView::showTable(const std::function<TableRead&()>& get) {
  TableRead* read = nullptr;
  try {
    read = &get();
  } catch (const std::exception& e) {
    note_->setText(QString::fromStdString(e.what()));
    announceBudget(std::nullopt);
    return;
  }
  current_ = std::move(read->table);
  axis_lines_ = std::move(read->lines);
  parent_ = read->parent;
  // The rows to test against are the table's; a choice that is no row any more is dropped.
  QStringList rows{kNoRow};
  for (const auto& r : current_->row_labels) rows << QString::fromStdString(r);
  refill(versus_, rows);
  const experiments::TableOptions& options = read->options;
  announceBudget(options.at);  // read_run_values found a least budget's number
  current_->notes.insert(current_->notes.end(), read->left_out.begin(), read->left_out.end());
  fillTable(options);
  verdicts_->setEnabled(!options.versus.empty() && !location_.isEmpty());
  const experiments::ComparisonTable& t = *current_;
  QStringList notes;
  for (const auto& n : t.notes) notes << QString::fromStdString(n);
  notes << optimaNote();
  notes.removeAll(QString());
  note_->setText(notes.join(QStringLiteral("\n")));
  drawChart();
}

void ComparisonView::announceBudget(const std::optional<experiments::Budget>& budget) {
  const auto same = [](const experiments::Budget& a, const experiments::Budget& b) {
    return a.axis == b.axis && a.x == b.x && a.tolerance == b.tolerance && a.least == b.least;
  };
  if (budget.has_value() == read_at_.has_value() && (!budget || same(*budget, *read_at_))) return;
  read_at_ = budget;
  emit budgetRead(budget);
}

// The table's settings from the view's choices (as `fathom export table` takes them).
experiments::TableOptions ComparisonView::tableOptions() const {
  const QString cols = cols_->currentText() == kNoColumns ? QString() : cols_->currentText();
  experiments::TableOptions options;
  options.rows = strip_axis(rows_->currentText());
  options.cols = strip_axis(cols);
  options.metric = metric_->currentText().toStdString();
  options.spread = experiments::Spread::Std;
  options.bold = options.cols.empty() ? experiments::BoldBest::None : experiments::BoldBest::Column;
  options.agg =
      best_variant_->isChecked() ? experiments::CellAgg::Best : experiments::CellAgg::Mean;
  options.at = budget_->budget();
  if (best_->isChecked() && !options.at) options.value = experiments::RunValue::Best;
  return options;
}

// The chosen sweep's runs that have the rows' (and columns') axes, by their axis tags.
std::vector<experiments::TableRun> ComparisonView::tableRuns(
    const experiments::TableOptions& options) const {
  std::vector<experiments::TableRun> runs;
  static const std::map<std::string, std::string> kNoTags;
  for (const auto& r : runs_) {
    auto it = tags_.find(r.id);
    // Axis tags only (the runs and tags the view already holds; no config lookups).
    experiments::TableRun t =
        experiments::table_run(r, it != tags_.end() ? it->second : kNoTags, options.metric, {});
    if (has_table_axis(t, options.rows) &&
        (options.cols.empty() || has_table_axis(t, options.cols)))
      runs.push_back(t);
  }
  return runs;
}

void ComparisonView::openVerdicts() {
  if (!current_ || versus_->currentIndex() <= 0) return;
  VerdictsRequest request{sweep_->currentText(), tableOptions(), versus_->currentText(), {}};
  // At a budget a test metric (measured once, at the end) has no value to test.
  for (int i = 0; i < metric_->count(); ++i)
    if (i != metric_->currentIndex() && is_evaluation_metric(metric_->itemText(i)) &&
        !(request.table.at && metric_->itemText(i).startsWith(QStringLiteral("test_"))))
      request.other_metrics << metric_->itemText(i);
  QString problem;
  if (!open_verdicts_window(this, location_, request, &problem)) emit error(problem);
}

}  // namespace fathom::gui

#include "moc_comparison_view.cpp"  // moc output for comparison_view.h: compiled in this unit
