#include "gui/reach_view.h"

#include <algorithm>
#include <set>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "experiments/reach_text.h"
#include "experiments/report_numbers.h"
#include "experiments/sweep_runs.h"
#include "gui/draw_when_shown.h"
#include "gui/export_targets.h"
#include "gui/results_widgets.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/split_shares.h"
#include "gui/store_session.h"
#include "gui/where_box.h"
#include "plot/reach_figure.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

const QString kOneColumn = QStringLiteral("(one column)");
const char* const kTab = "the Time to target tab";

// The sweep's axes (axis.* tags, the seed left out, and its layout's zip groups, "a+b") and its
// layout: the axis groups in the order the sweep file varies them.
void sweep_axes(const db::Store& store, const experiments::SweepRuns& runs,
                std::vector<std::string>& axes, std::vector<std::string>& layout) {
  std::vector<int64_t> ids;
  for (const auto& r : runs.runs) ids.push_back(r.id);
  std::set<std::string> found;
  for (const auto& [run, tags] : store.listing_tags(ids))
    for (const auto& [key, value] : tags) {
      if (key == "sweep.axes" && layout.empty())
        for (const QString& group : QString::fromStdString(value).split(','))
          if (group != QStringLiteral("train.seed")) layout.push_back(group.toStdString());
      const bool seed = key.size() >= 5 && key.compare(key.size() - 5, 5, ".seed") == 0;
      if (key.rfind("axis.", 0) == 0 && !seed) found.insert(key.substr(5));
    }
  for (const auto& group : layout)
    if (group.find('+') != std::string::npos) found.insert(group);
  axes.assign(found.begin(), found.end());
}

// An axis group that sets the batch (a key of it does): the rows a batch-size study is read by.
bool sets_the_batch(const std::string& group) {
  for (const QString& key : QString::fromStdString(group).split('+'))
    if (key == QStringLiteral("data.max_tokens") || key == QStringLiteral("train.update_tokens"))
      return true;
  return false;
}

// The box's items again, `chosen` current; no signal.
void refill_choosing(QComboBox* box, const QStringList& items, const QString& chosen) {
  const QSignalBlocker block(box);
  box->clear();
  box->addItems(items);
  box->setCurrentIndex(std::max(0, static_cast<int>(items.indexOf(chosen))));
}

}  // namespace

ReachView::ReachView(QWidget* parent)
    : QWidget(parent), worker_(new StoreWorker(this)), when_shown_(new DrawWhenShown(this)) {
  connect(worker_, &StoreWorker::failed, this, &ReachView::error);
  buildChoices();
  plot_ = make_figure_plot(this, figure_);
  set_figure_source(plot_, [this] { return figure_; });
  table_ = make_results_table();
  note_ = new QLabel(QStringLiteral(
      "Open a store with a sweep: the updates its cells took to reach a value of a curve."));
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(plot_);
  split->addWidget(table_);
  keep_split_shares(split, {3, 2});
  auto* layout = qobject_cast<QVBoxLayout*>(this->layout());
  layout->addWidget(split, 1);
  layout->addWidget(note_);
}

// Two rows: what is read (sweep, curve, target, fit), then how it is laid out (rows, columns)
// and which runs (the where box).
void ReachView::buildChoices() {
  sweep_ = new QComboBox;
  sweep_->setMinimumContentsLength(14);
  metric_ = new QComboBox;
  for (const std::string& m : {db::metric::kValidLoss, db::metric::kValidNll, db::metric::kValidPpl,
                               db::metric::kValidBleu, db::metric::kTrainLoss})
    metric_->addItem(QString::fromStdString(m));
  target_ = new QLineEdit;
  target_->setClearButtonEnabled(true);
  target_->setToolTip(QStringLiteral(
      "the value to reach (at or below for a loss, at or above for BLEU); empty: the least "
      "demanding value every finished run reached"));
  // No mnemonic: every letter of it opens a tab or a menu.
  fit_box_ = new QCheckBox(QStringLiteral("Fit critical batch"));
  fit_box_->setToolTip(QStringLiteral(
      "fit S = S_min (1 + B_crit / B) to the rows' best cells, B their target tokens per update "
      "(McCandlish et al. 2018, eq. 2.11): rows should be the batch"));
  rows_ = new QComboBox;
  cols_ = new QComboBox;
  // A zip group's name is four keys long: the boxes keep to 24 letters (their lists show all).
  for (auto* box : {rows_, cols_}) {
    box->setMinimumContentsLength(24);
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  }
  rows_->setToolTip(QStringLiteral("a row per value of this axis: the batch, data.max_tokens"));
  cols_->setToolTip(QStringLiteral("a column (a line) per value of this axis: the rate"));
  auto* bar = new QHBoxLayout;
  add_labelled(*bar, QStringLiteral("S&weep"), sweep_);
  add_labelled(*bar, QStringLiteral("&Metric"), metric_);
  add_labelled(*bar, QStringLiteral("&Target"), target_);
  bar->addWidget(fit_box_);
  bar->addStretch();
  auto* layout_bar = new QHBoxLayout;
  add_labelled(*layout_bar, QStringLiteral("R&ows"), rows_);
  add_labelled(*layout_bar, QStringLiteral("&Columns"), cols_);
  where_ = add_where_box(*layout_bar);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addLayout(layout_bar);
  for (auto* box : {sweep_, metric_, rows_, cols_})
    connect(box, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  for (auto* edit : {target_, where_})
    connect(edit, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(fit_box_, &QCheckBox::toggled, this, [this] { redraw(); });
}

void ReachView::setStore(StoreSession* session, const QString& location) {
  when_shown_->cancel();  // runs of the last store
  session_ = session;
  worker_->setDatabase(session ? location : QString());
  ++asked_;  // a read of the last store is not shown
  signature_.clear();
  const QSignalBlocker block(sweep_);
  sweep_->clear();
  if (!session) redraw();
}

void ReachView::showRuns(const std::vector<db::RunRecord>& all, const std::vector<db::RunRecord>&) {
  // Only whole curves count (finished or diverged runs): a run's status changing is news.
  const std::string signature = runs_status_signature(all);
  if (signature == signature_) return;
  if (when_shown_->defer(signature, [&] { return [this, all] { showRuns(all, {}); }; })) return;
  signature_ = signature;
  std::set<std::string> sweeps;
  for (const auto& r : all)
    if (!r.sweep.empty()) sweeps.insert(r.sweep);
  QStringList names;
  for (const auto& s : sweeps) names << QString::fromStdString(s);
  refill_choosing(sweep_, names, sweep_->currentText());
  redraw();
}

bool ReachView::choose(const QString& sweep, const QString& metric, const QString& target,
                       const QString& rows, const QString& cols, bool fit) {
  if (sweep_->findText(sweep) < 0 || metric_->findText(metric) < 0) return false;
  {
    const QSignalBlocker b1(sweep_), b2(metric_), b3(fit_box_);
    sweep_->setCurrentText(sweep);
    metric_->setCurrentText(metric);
    target_->setText(target);
    fit_box_->setChecked(fit);
  }
  redraw();
  waitForResults();  // the sweep's axes, offered once read
  const QString col = cols.isEmpty() ? kOneColumn : cols;
  if (rows_->findText(rows) < 0 || cols_->findText(col) < 0) return false;
  {
    const QSignalBlocker b1(rows_), b2(cols_);
    rows_->setCurrentText(rows);
    cols_->setCurrentText(col);
  }
  redraw();
  waitForResults();
  return shown_.has_value();
}

void ReachView::saveSettings(QSettings& settings) const {
  settings.setValue("reach/metric", metric_->currentText());
  settings.setValue("reach/target", target_->text());
  settings.setValue("reach/fit", fit_box_->isChecked());
}

void ReachView::restoreSettings(const QSettings& settings) {
  const QSignalBlocker b1(metric_), b2(fit_box_);
  if (const QString m = settings.value("reach/metric").toString(); metric_->findText(m) >= 0)
    metric_->setCurrentText(m);
  target_->setText(settings.value("reach/target").toString());
  fit_box_->setChecked(settings.value("reach/fit", false).toBool());
}

QString ReachView::noteText() const { return note_->text(); }

ReachView::Read ReachView::read(const db::Store& store, Choices c) {
  Read r;
  const auto selected = experiments::select_sweep_runs(store, c.sweep, c.where, kTab);
  std::vector<std::string> axes, layout;
  sweep_axes(store, selected, axes, layout);
  for (const auto& a : axes) r.axes << QString::fromStdString(a);
  const auto offered = [&](const std::string& a) {
    return std::find(axes.begin(), axes.end(), a) != axes.end();
  };
  // A fresh choice: the sweep's axis group that sets the batch by its first other group (the
  // batch by the rate: what the critical batch is fitted over); with none, as `fathom report`
  // tables it, its first group by its second.
  std::vector<std::string> groups;
  for (const auto& g : layout)
    if (offered(g)) groups.push_back(g);
  std::stable_partition(groups.begin(), groups.end(), sets_the_batch);
  if (!offered(c.rows)) c.rows = groups.empty() ? "" : groups[0];
  if (c.rows.empty() && !axes.empty()) c.rows = axes.front();
  std::string cols = c.cols.value_or(groups.size() > 1 ? groups[1] : "");
  if (!cols.empty() && (!offered(cols) || cols == c.rows)) cols.clear();
  r.rows = c.rows;
  r.cols = cols;
  if (c.rows.empty()) {
    r.note = QStringLiteral("Sweep %1 varies no axis.").arg(QString::fromStdString(c.sweep));
    return r;
  }
  r.target = c.target ? c.target : experiments::target_every_run_reached(store, selected, c.metric);
  if (!r.target) {
    r.note = QStringLiteral("No finished run of %1 has a %2 curve to read a target from: type one.")
                 .arg(QString::fromStdString(c.sweep), QString::fromStdString(c.metric));
    return r;
  }
  r.options.rows = c.rows;
  r.options.cols = cols;
  r.options.metric = c.metric;
  r.options.target = *r.target;
  r.options.where = c.where;
  r.table = experiments::reach_table(store, selected, c.sweep, r.options);
  if (c.fit) r.fit = experiments::fit_best_cells(*r.table);
  r.b_simple = experiments::best_cells_b_simple(*r.table);
  r.figure = plot::reach_figure(*r.table, r.options, r.fit, r.b_simple);
  return r;
}

void ReachView::redraw() {
  ++asked_;  // a read of older choices is not shown
  shown_.reset();
  fit_.reset();
  figure_.reset();
  plot::clear_plottables(*plot_);
  plot_->replot();
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  if (!session_ || sweep_->currentText().isEmpty()) return;
  Choices c;
  c.sweep = sweep_->currentText().toStdString();
  c.metric = metric_->currentText().toStdString();
  c.rows = rows_->currentText().toStdString();
  // No columns offered yet (another sweep's, or none): the sweep's own second axis.
  if (cols_->count() > 0)
    c.cols = cols_->currentText() == kOneColumn ? "" : cols_->currentText().toStdString();
  c.where = where_->text().trimmed().toStdString();
  c.fit = fit_box_->isChecked();
  if (const QString text = target_->text().trimmed(); !text.isEmpty()) {
    bool ok = false;
    c.target = text.toDouble(&ok);
    if (!ok) {
      note_->setText(QStringLiteral("Target: '%1' is not a number.").arg(text));
      return;
    }
  }
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  worker_->request([this, c]() -> StoreWorker::Job {
    return read_then_show<Read>([c](const db::Store& store) { return read(store, c); },
                                [this, asked = asked_](const auto& get) {
                                  if (asked == asked_) showRead(get);
                                });
  });
}

void ReachView::showRead(const std::function<Read&()>& get) {
  Read* r = nullptr;
  try {
    r = &get();
  } catch (const std::exception& e) {
    if (auto bad_filter = where_error(e)) return note_->setText(*bad_filter);
    // A sweep whose runs lack the axes, or none finished yet, is no store error.
    if (const auto* bad = dynamic_cast<const InputError*>(&e);
        bad && (bad->field() == "--rows" || bad->field() == "--sweep"))
      return note_->setText(QString::fromStdString(bad->message()));
    note_->setText(describe_store_error(e));
    emit error(describe_store_error(e));
    return;
  }
  offerAxes(*r);
  if (!r->table) return note_->setText(r->note);
  shown_ = std::move(r->table);
  fit_ = r->fit;
  figure_ = std::move(r->figure);
  plot::setup_plot(*plot_, *figure_, screen_style(font()));
  plot_->replot();
  fillTable(*shown_, r->options);
  QStringList notes;
  if (fit_box_->isChecked())
    notes << QString::fromStdString(experiments::critical_batch_text(fit_, r->b_simple)).trimmed();
  for (const auto& n : shown_->notes) notes << QString::fromStdString(n);
  notes << QStringLiteral(
      "The figure leaves out a cell some run of which never got there: its mean over those "
      "that did would flatter it. Bold: each row's best cell.");
  note_->setText(notes.join('\n'));
}

// The rows and columns the read used, among the sweep's axes; the target it read, where none
// was typed, as the box's placeholder.
void ReachView::offerAxes(const Read& r) {
  refill_choosing(rows_, r.axes, QString::fromStdString(r.rows));
  refill_choosing(cols_, QStringList{kOneColumn} + r.axes,
                  r.cols.empty() ? kOneColumn : QString::fromStdString(r.cols));
  target_->setPlaceholderText(
      r.target && target_->text().trimmed().isEmpty()
          ? QStringLiteral("every finished run's: %1")
                .arg(QString::fromStdString(experiments::cell_number(*r.target)))
          : QStringLiteral("e.g. 2.0"));
}

void ReachView::fillTable(const experiments::ReachTable& t, const experiments::ReachOptions& o) {
  show_text_table(*table_, experiments::reach_text_table(t, o));
  const int updates = o.cols.empty() ? 2 : 3;  // each row's best cell's updates in bold
  for (size_t i : t.best) {
    QTableWidgetItem* item = table_->item(static_cast<int>(i), updates);
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
  }
}

}  // namespace fathom::gui

#include "moc_reach_view.cpp"  // moc output for reach_view.h: compiled in this unit
