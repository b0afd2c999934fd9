#include "gui/runs_view.h"

#include "db/run_paths.h"

#include <algorithm>
#include <set>

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "db/early_stop_tag.h"
#include "db/metric_names.h"
#include "db/metric_presentation.h"
#include "db/run_status.h"
#include "db/update_rate.h"
#include "gui/ascending_walk.h"
#include "gui/export_menu.h"
#include "gui/frozen_columns.h"
#include "gui/run_actions.h"
#include "gui/run_brush.h"
#include "gui/run_page.h"
#include "gui/run_pages.h"
#include "gui/runs_filter.h"
#include "gui/runs_model.h"
#include "gui/runs_notes.h"
#include "gui/store_session.h"
#include "gui/store_worker.h"

namespace fathom::gui {
namespace {

const QString kAllSweeps = QStringLiteral("All runs");
const QString kNoSweep = QStringLiteral("Single runs (no sweep)");

}  // namespace

RunsView::RunsView(QWidget* parent)
    : QWidget(parent),
      worker_(new StoreWorker(this)),
      listing_(std::make_shared<SharedRunListing>()) {
  connect(worker_, &StoreWorker::failed, this, &RunsView::error);
  model_ = new RunsModel(this);
  filter_ = new RunsFilter(this);
  filter_->setSourceModel(model_);
  pages_ = new RunPages(this);
  buildTable();
  buildFilterBar();
  buildActions();
  layOut();
  connectParts();
  updateActions();
}

void RunsView::buildTable() {
  table_ = new QTableView;
  table_->setModel(filter_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::DescendingOrder);  // newest first
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(false);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  add_export_menu(table_);
  freeze_first_columns(table_, RunsModel::Name + 1);  // id and name stay as it scrolls sideways
}

// The sweep choice, the filter expression and its note, and the hint of an empty store.
void RunsView::buildFilterBar() {
  sweep_ = new QComboBox;
  sweep_->setMinimumContentsLength(24);
  sweep_->addItem(kAllSweeps);
  text_ = new QLineEdit;
  text_->setPlaceholderText(
      QStringLiteral("filter: norm=pre and valid_ppl<3, or a word of the name (Ctrl+F)"));
  text_->setToolTip(QStringLiteral(
      "FIELD OP VALUE with OP = != < <= > >= ~ (contains), joined by and, or, not and "
      "parentheses. Fields: id, name, sweep, status, host, updates, diverged_step, any final "
      "metric (valid_ppl, test_bleu), any config key (model.norm, or norm alone). A bare word "
      "matches name, status or sweep. Escape clears."));
  text_->setClearButtonEnabled(true);
  auto* clear = new QAction(QStringLiteral("Clear the runs filter"), text_);  // Escape
  clear->setShortcut(QKeySequence(Qt::Key_Escape));
  clear->setShortcutContext(Qt::WidgetShortcut);
  connect(clear, &QAction::triggered, text_, &QLineEdit::clear);
  text_->addAction(clear);
  filter_note_ = new QLabel;
  filter_note_->setVisible(false);
  sweep_note_ = new QLabel;
  sweep_note_->setVisible(false);
  brush_note_ = new QLabel;  // the brush's line: what it keeps and a link that clears it
  brush_note_->setVisible(false);
  brush_note_->setStyleSheet(QStringLiteral("QLabel { background: #e3f2fd; padding: 3px; }"));
  // What a first look at an empty window needs: where runs come from (issue 36.8).
  hint_ = new QLabel;
  hint_->setWordWrap(true);
  hint_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hint_->setContentsMargins(8, 8, 8, 8);
  hint_->setStyleSheet(
      QStringLiteral("QLabel { background: #fff8e1; border: 1px solid #e0c060; }"));
  updateHint();
}

// The actions on the selected runs, with their shortcuts (the bar's buttons and the menu).
void RunsView::buildActions() {
  auto action = [this](const QString& text, const QKeySequence& key, const QString& tip,
                       void (RunsView::*slot)()) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    a->setToolTip(
        tip + (key.isEmpty() ? QString() : " (" + key.toString(QKeySequence::NativeText) + ")"));
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    return a;
  };
  open_ = action(
      QStringLiteral("&Open"), QKeySequence(Qt::Key_Return),
      QStringLiteral("the run page of each selected run, a window each: its charts, overview, "
                     "config, log, samples and notes, live while it trains"),
      &RunsView::openSelected);
  compare_ = action(
      QStringLiteral("Comp&are runs"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C),
      QStringLiteral("fathom compare: the selected runs' settings that differ, final metrics, "
                     "curves, and paired bootstrap tests of test BLEU and perplexity against "
                     "the lowest id"),
      &RunsView::compareSelected);
  cancel_ = action(QStringLiteral("&Cancel"), QKeySequence(Qt::CTRL | Qt::Key_K),
                   QStringLiteral("cancel the selected queued or running runs"),
                   &RunsView::cancelSelected);
  resume_ = action(QStringLiteral("&Resume"), QKeySequence(Qt::CTRL | Qt::Key_R),
                   QStringLiteral("fathom train --resume ID: continue from the last checkpoint"),
                   &RunsView::resumeSelected);
  reproduce_ = action(QStringLiteral("Re&produce"), {},
                      QStringLiteral("fathom train --reproduce ID: train the run's config again as "
                                     "a new run and say whether its curves equal the run's (its "
                                     "tag reproduction)"),
                      &RunsView::reproduceSelected);
  delete_ = action(QStringLiteral("&Delete"), QKeySequence::Delete,
                   QStringLiteral("delete the selected runs"), &RunsView::deleteSelected);
  prune_ = action(QStringLiteral("&Prune checkpoints..."), {},
                  QStringLiteral("free disk: remove kept checkpoints beyond the newest N"),
                  &RunsView::pruneSelected);
  cancel_sweep_ = action(QStringLiteral("Cancel s&weep"), {},
                         QStringLiteral("fathom sweep cancel NAME for the selected run's sweep"),
                         &RunsView::cancelSweep);
  columns_ = action(QStringLiteral("Co&lumns..."), {},
                    QStringLiteral("config keys shown as columns"), &RunsView::chooseConfigColumns);
  metrics_ = action(QStringLiteral("&Metrics..."), {},
                    QStringLiteral("the final metrics shown as columns and their order, kept for "
                                   "this store"),
                    &RunsView::chooseMetricColumns);
  show_best_ =
      action(QStringLiteral("&Best"), {},
             QStringLiteral(
                 "beside each metric's final value, its best point over training and its update "
                 "(lowest loss and perplexity, highest BLEU)"),
             &RunsView::refresh);
  show_best_->setCheckable(true);
  focus_filter_ = new QAction(QStringLiteral("&Filter runs"), this);
  focus_filter_->setShortcut(QKeySequence::Find);
  connect(focus_filter_, &QAction::triggered, this, [this] {
    text_->setFocus();
    text_->selectAll();
  });
}

void RunsView::layOut() {
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Sweep")));
  bar->addWidget(sweep_);
  bar->addWidget(text_, 1);
  for (QAction* a : {open_, compare_, cancel_, resume_, delete_, cancel_sweep_, columns_, metrics_,
                     show_best_}) {
    auto* b = new QToolButton;
    b->setDefaultAction(a);
    bar->addWidget(b);
  }
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(hint_);
  layout->addWidget(filter_note_);
  layout->addWidget(sweep_note_);
  layout->addWidget(brush_note_);
  layout->addWidget(table_, 1);
}

// What the filter bar and the table's selection change.
void RunsView::connectParts() {
  connect(sweep_, &QComboBox::currentIndexChanged, this, [this] {
    const QString s = sweep_->currentText();
    filter_->setSweep(s == kAllSweeps ? std::nullopt
                                      : std::optional<QString>(s == kNoSweep ? QString() : s));
    updateSweepNote();
    if (s != kAllSweeps && s != kNoSweep) refreshInBackground();  // its line now, not a poll later
  });
  connect(text_, &QLineEdit::textChanged, filter_, &RunsFilter::setText);
  connect(filter_, &RunsFilter::filterStatusChanged, this, [this] {
    const QString note = filter_->statusText();
    filter_note_->setText(note);
    filter_note_->setVisible(!note.isEmpty());
    // A red frame while the expression does not parse (the table keeps the last good one).
    text_->setStyleSheet(filter_->error().isEmpty() ? QString()
                                                    : QStringLiteral("border: 1px solid #c62828"));
  });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    updateActions();
    emit selectionChanged();
  });
  connect(table_, &QTableView::doubleClicked, this, &RunsView::openSelected);
}

QList<QAction*> RunsView::runActions() const {
  return {open_,  compare_,      cancel_,  resume_,  reproduce_, delete_,
          prune_, cancel_sweep_, columns_, metrics_, show_best_};
}

void RunsView::setSession(StoreSession* session, const QString& db_location) {
  session_ = session;
  db_location_ = db_location;
  pages_->setStore(session ? &session->store : nullptr, db_location);
  if (session) restoreColumns();  // this store's choices (gui/runs_columns.cpp)
  updateHint();
  model_->setRuns({});
  model_->setBestPoints({});
  ended_read_.clear();
  jobs_.clear();
  early_stops_.clear();
  jobs_rows_ = axes_rows_ = -1;
  hidden_selection_.clear();  // ids of the old store's runs
  axes_.clear();
  run_axes_.clear();
  best_points_.clear();
  best_read_at_.clear();
  listing_ = std::make_shared<SharedRunListing>();
  shown_read_ = ++reads_;  // a read of the last store still under way is not shown
  worker_->setDatabase(session ? QString::fromStdString(session->store.location()) : QString());
  refresh();
}

void RunsView::refresh() {
  if (!session_) return;
  const uint64_t read = ++reads_;
  try {
    showRead(read, read_runs(session_->store, *listing_, readInputs()));
  } catch (const std::exception& e) {
    emit error(describe_store_error(e));
  }
}

void RunsView::refreshInBackground(std::function<void()> then) {
  if (!session_) {
    if (then) then();
    return;
  }
  worker_->request([this, then = std::move(then)]() -> StoreWorker::Job {
    const uint64_t read = ++reads_;
    return read_then_show<RunsRead>(
        [listing = listing_, in = readInputs()](const db::Store& store) {
          return read_runs(store, *listing, in);
        },
        [this, read, then](const auto& get) {
          try {
            showRead(read, std::move(get()));
          } catch (const std::exception& e) {
            if (read > shown_read_) emit error(describe_store_error(e));
          }
          if (then) then();
        });
  });
}

bool RunsView::reading() const { return worker_->busy(); }

RunsReadInputs RunsView::readInputs() const {
  RunsReadInputs in;
  in.ended_known = ended_read_;
  in.best = show_best_->isChecked();
  if (in.best) in.best_read_at = best_read_at_;
  if (const QString s = sweep_->currentText(); s != kAllSweeps && s != kNoSweep)
    in.sweep = s.toStdString();
  return in;
}

void RunsView::showRead(uint64_t read, RunsRead&& runs) {
  if (read <= shown_read_)
    return;  // a later read was shown (a refresh in place), or the store changed
  shown_read_ = read;
  const bool first = model_->rowCount() == 0;
  model_->setRuns(std::move(runs.runs));
  showJobs(runs);
  showBest(runs);
  if (first && model_->rowCount() > 0) fitColumns();
  pages_->refresh(model_->runs());
  refreshSweeps();
  if (!followed_sweep_.isEmpty() && showSweep(followed_sweep_)) followed_sweep_.clear();
  updateActions();
  updateHint();
}

// Each column as wide as its contents, but none wider than kWidestColumnShare of the view: a
// sweep's long run names (its axes spelled out) would otherwise push the config and metric
// columns off screen. A cut name shows whole in its tooltip.
void RunsView::fitColumns() {
  if (!table_->isVisible()) {  // not laid out: its width says nothing yet (showEvent fits)
    fit_when_shown_ = true;
    return;
  }
  table_->resizeColumnsToContents();
  const int widest =
      std::max(160, static_cast<int>(kWidestColumnShare * table_->viewport()->width()));
  for (int c = 0; c < model_->columnCount(); ++c)
    if (table_->columnWidth(c) > widest) table_->setColumnWidth(c, widest);
}

void RunsView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!fit_when_shown_) return;
  fit_when_shown_ = false;
  QTimer::singleShot(0, this, [this] { fitColumns(); });  // once the layout gave it its width
}

void RunsView::updateHint() {
  const QString hint = empty_store_hint(
      session_ != nullptr, session_ ? QString::fromStdString(session_->store.path()) : QString(),
      model_->runs().empty());  // the path without a password
  if (!hint.isEmpty()) hint_->setText(hint);
  hint_->setVisible(!hint.isEmpty());
}

namespace {

// Sets (or, for "", removes) a run's entry; whether that changed it.
bool set_shown(AscendingWalk<std::map<int64_t, QString>>& shown, int64_t run,
               const QString& value) {
  if (value.isEmpty()) return shown.erase(run);
  QString& entry = shown.get(run);
  if (entry == value) return false;
  entry = value;
  return true;
}

}  // namespace

// What the read tags say of each run: its worker job, why an early stop ended it, its sweep
// axes. An ended run's tags are read once (read_runs skips them after) and shown as they were
// until a resume runs it again; the model takes the columns again only when one moved.
void RunsView::showJobs(const RunsRead& read) {
  const int rows = model_->rowCount();
  bool jobs_moved = rows != jobs_rows_, axes_moved = rows != axes_rows_;
  // The read's runs are the model's; those ended and read before have no tags in it.
  AscendingWalk jobs(jobs_), early_stops(early_stops_);
  AscendingWalk run_axes(run_axes_);
  AscendingWalk ended(ended_read_);
  for (const auto& [run, tags] : read.tags) {
    jobs_moved |= set_shown(jobs, run, tags.job);
    jobs_moved |= set_shown(early_stops, run, tags.early_stop);
    if (tags.ended)
      ended_read_.insert(run);
    else
      ended.erase(run);
    if (tags.axes.empty()) continue;
    auto& axes = run_axes.get(run);
    if (axes == tags.axes) continue;  // a queued run's, read again each poll
    axes = tags.axes;
    axes_moved = true;
    for (const auto& [key, value] : tags.axes) axes_.insert(QString::fromStdString(key));
  }
  if (jobs_moved) {
    std::set<int64_t> listed;  // deleted runs' entries go
    for (const auto& run : model_->runs()) listed.insert(run.id);
    for (auto* shown : {&jobs_, &early_stops_})
      for (auto it = shown->begin(); it != shown->end();)
        it = listed.count(it->first) ? std::next(it) : shown->erase(it);
    model_->setJobs(jobs_);
    model_->setEarlyStops(early_stops_);
    jobs_rows_ = rows;
  }
  if (axes_moved) {  // the sweep axes, columns unless the user chose
    model_->setAxes(run_axes_);
    axes_rows_ = rows;
    if (!columns_chosen_ && configColumns() != QStringList(axes_.begin(), axes_.end()))
      model_->setConfigColumns(QStringList(axes_.begin(), axes_.end()));
  }
  // A running run's training loss now, its last train_loss point, and the rate it trains at
  // now, from its last few (db/update_rate.h).
  std::map<int64_t, double> loss, seconds_per_update;
  for (const auto& [run, points] : read.recent_losses) {
    if (points.empty()) continue;
    loss[run] = points.back().value;
    if (const auto rate = db::seconds_per_update(points)) seconds_per_update[run] = *rate;
  }
  sweep_standing_ = read.sweep;
  model_->setCurrentLoss(std::move(loss), std::move(seconds_per_update));
  updateSweepNote();
}

void RunsView::updateSweepNote() {
  const auto& read = sweep_standing_;  // another sweep's: hidden until its runs are read
  const bool shown = read && QString::fromStdString(read->sweep) == sweep_->currentText();
  sweep_note_->setText(shown ? sweep_time_note(*read) : QString());
  sweep_note_->setVisible(!sweep_note_->text().isEmpty());
}

void RunsView::setShowBest(bool on) {
  show_best_->setChecked(on);
  refresh();
}

bool RunsView::showBest() const { return show_best_->isChecked(); }

// Best points as read: those of the runs read again replace theirs, deleted runs' go.
void RunsView::showBest(const RunsRead& read) {
  if (!show_best_->isChecked()) {
    model_->setBestPoints({});
    return;
  }
  if (!read.best) return;  // read before "Best" was turned on: the refresh it made shows them
  best_read_at_.clear();   // each listed run's (updates, status) now: deleted runs drop out
  for (const auto& run : model_->runs()) best_read_at_[run.id] = {run.updates, run.status};
  for (const auto& name : read.best_metrics) {
    auto& points = best_points_[name];
    for (auto it = points.begin(); it != points.end();)
      it = !best_read_at_.count(it->first) || read.best_reread.count(it->first) ? points.erase(it)
                                                                                : std::next(it);
    if (const auto found = read.best_points.find(name); found != read.best_points.end())
      for (const auto& [run, point] : found->second) points[run] = point;
    if (points.empty()) best_points_.erase(name);
  }
  model_->setBestPoints(best_points_);
}

void RunsView::refreshSweeps() {
  std::set<QString> sweeps;
  bool singles = false;
  for (const auto& r : model_->runs()) {
    if (r.sweep.empty())
      singles = true;
    else
      sweeps.insert(QString::fromStdString(r.sweep));
  }
  QStringList items{kAllSweeps};
  if (singles) items << kNoSweep;
  for (const auto& s : sweeps) items << s;
  QStringList current;
  for (int i = 0; i < sweep_->count(); ++i) current << sweep_->itemText(i);
  if (current == items) return;
  const QString chosen = sweep_->currentText();
  QSignalBlocker block(sweep_);
  sweep_->clear();
  sweep_->addItems(items);
  sweep_->setCurrentIndex(std::max(0, static_cast<int>(items.indexOf(chosen))));
}

std::vector<db::RunRecord> RunsView::selectedRuns() const {
  std::vector<db::RunRecord> out;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
    if (const auto* run = model_->runAt(filter_->mapToSource(index).row())) out.push_back(*run);
  }
  return out;
}

void RunsView::selectAll() { table_->selectAll(); }

void RunsView::selectRuns(const std::vector<int64_t>& ids) {
  QItemSelection rows;
  for (int r = 0; r < filter_->rowCount(); ++r) {
    const QModelIndex index = filter_->index(r, 0);
    const auto* run = model_->runAt(filter_->mapToSource(index).row());
    if (run && std::find(ids.begin(), ids.end(), run->id) != ids.end()) rows.select(index, index);
  }
  table_->selectionModel()->select(rows,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

bool RunsView::showSweep(const QString& sweep) {
  const int index = sweep_->findText(sweep);
  if (index < 0) return false;
  sweep_->setCurrentIndex(index);
  return true;
}

void RunsView::followSweep(const QString& sweep) {
  followed_sweep_ = sweep;
  table_->clearSelection();
  hidden_selection_.clear();
  refresh();
}

void RunsView::updateActions() {
  const auto runs = selectedRuns();
  bool any_active = false, any_resumable = false, any_sweep = false;
  for (const auto& r : runs) {
    any_active |= db::status::is_active(r.status);
    any_resumable |= db::status::is_resumable(r.status);
    any_sweep |= !r.sweep.empty();
  }
  open_->setEnabled(!runs.empty() && runs.size() <= 8);        // a window each
  compare_->setEnabled(runs.size() >= 2 && runs.size() <= 8);  // a column each
  cancel_->setEnabled(any_active);
  resume_->setEnabled(any_resumable);
  reproduce_->setEnabled(std::any_of(runs.begin(), runs.end(), can_reproduce));
  cancel_sweep_->setEnabled(any_sweep);
  // A running run is refused by the store; say so by the button already.
  bool any_running = false;
  for (const auto& r : runs) any_running |= r.status == db::status::kRunning;
  delete_->setEnabled(!runs.empty() && !any_running);
  prune_->setEnabled(!runs.empty());
}

void RunsView::openSelected() {
  if (!session_) return;
  try {
    for (const auto& run : selectedRuns())
      pages_->open(session_->store, run, model_->runs(), db_location_);
  } catch (const std::exception& e) {
    emit error(describe_store_error(e));
  }
}

RunPage* RunsView::openScreenshotPage() {
  if (!session_) return nullptr;
  const db::RunRecord* chosen = nullptr;
  for (const auto& run : model_->runs()) {  // oldest first: the newest with curves wins
    if (chosen && chosen->status == db::status::kRunning) break;
    if (run.updates > 0) chosen = &run;
  }
  if (!chosen) return nullptr;
  return pages_->open(session_->store, *chosen, model_->runs(), db_location_);
}

void RunsView::setBrush(RunBrush* brush) {
  brush_ = brush;
  // Selected runs a brush hides come back selected when it lets them through again (a
  // cleared brush lost them: the views after showed other runs). Connected before the filter,
  // which drops the hidden rows from the selection when it sees the brush.
  if (brush)
    connect(brush, &RunBrush::changed, this, [this] {
      for (const auto& run : selectedRuns())
        if (!brush_->keeps(run.id)) hidden_selection_.insert(run.id);
    });
  filter_->setBrush(brush);
  if (!brush) return;
  connect(brush_note_, &QLabel::linkActivated, brush, &RunBrush::clear);
  connect(brush, &RunBrush::changed, this, [this] {
    std::vector<int64_t> back;
    for (const int64_t id : hidden_selection_)
      if (brush_->keeps(id)) back.push_back(id);
    if (!back.empty()) {
      for (const int64_t id : back) hidden_selection_.erase(id);
      for (const auto& run : selectedRuns()) back.push_back(run.id);
      selectRuns(back);
    }
    brush_note_->setVisible(brush_->active());
    brush_note_->setText(
        QStringLiteral("Showing only the %1 brushed run(s): %2. <a href=\"clear\">Clear "
                       "brush</a>")
            .arg(brush_->runs().size())
            .arg(brush_->description().toHtmlEscaped()));
    emit selectionChanged();  // the selection may have lost rows the filter hides
  });
}

void RunsView::saveSettings(QSettings& settings) const {
  settings.setValue("runs/showBest", showBest());
}

void RunsView::restoreSettings(const QSettings& settings) {
  setShowBest(settings.value("runs/showBest", false).toBool());
}

void RunsView::extraScreenshots(const std::function<void(const QString& file)>& shoot) {
  if (model_->runs().empty()) return;
  const QString before = text_->text();
  text_->setText(QStringLiteral("norm=pre and decoder_layers>=12"));
  shoot(QStringLiteral("runs-filtered.png"));
  text_->setText(before);
  const int last = sweep_->count() - 1, shown = sweep_->currentIndex();
  if (last < 1 || sweep_->itemText(last) == kNoSweep) return;
  sweep_->setCurrentIndex(last);  // the last sweep alone: its runs and time left
  refresh();                      // read in place: the shot does not wait for the worker
  shoot(QStringLiteral("runs-sweep.png"));
  sweep_->setCurrentIndex(shown);
}

}  // namespace fathom::gui

#include "moc_runs_view.cpp"  // moc output for runs_view.h: compiled in this unit
