#include "gui/lr_sensitivity_view.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/util/error.h"
#include "db/metric_names.h"
#include "experiments/lr_extension.h"
#include "experiments/text_table.h"
#include "gui/budget_choice.h"
#include "gui/draw_when_shown.h"
#include "gui/export_targets.h"
#include "gui/extension_offer.h"
#include "gui/results_widgets.h"
#include "gui/runs_signature.h"
#include "gui/screen_style.h"
#include "gui/split_shares.h"
#include "gui/store_session.h"
#include "gui/where_box.h"
#include "plot/lr_sensitivity_figure.h"
#include "plot/lr_transfer_figure.h"
#include "plot/render.h"

namespace fathom::gui {
namespace {

// Losses a sensitivity is defined on (lower is better).
const QStringList kMetrics = {
    QString::fromStdString(db::metric::kValidLoss), QString::fromStdString(db::metric::kValidNll),
    QString::fromStdString(db::metric::kValidPpl), QString::fromStdString(db::metric::kTrainLoss)};

}  // namespace

LrSensitivityView::LrSensitivityView(QWidget* parent)
    : QWidget(parent), worker_(new StoreWorker(this)), when_shown_(new DrawWhenShown(this)) {
  connect(worker_, &StoreWorker::failed, this, &LrSensitivityView::error);
  // Two rows: what is read (sweep, loss, which value, budget, runs), then how the curves are
  // named, judged and shown; one row of all of them left the text boxes a few letters wide in
  // a laptop's 1100 pixels.
  QHBoxLayout* bar = buildChoiceBar();
  auto* curve_bar = new QHBoxLayout;
  addCurveOptions(curve_bar);
  QSplitter* split = buildResults();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addLayout(curve_bar);
  layout->addWidget(split, 1);
  // Beside the notes, which say how many curves have their best rate at an end: a curve whose
  // best rate is the grid's lowest or highest may have its optimum beyond.
  extend_ = new QPushButton(QStringLiteral("E&xtend grid..."));
  extend_->setEnabled(false);
  extend_->setToolTip(QStringLiteral(
      "write the sweep file of one rate beyond the grid's end for the curves whose best rate "
      "is at that end (fathom sweep extend), to run with --resume"));
  connect(extend_, &QPushButton::clicked, this, [this] { extendGrid(); });
  auto* under = new QHBoxLayout;
  under->addWidget(note_, 1);
  under->addWidget(extend_, 0, Qt::AlignTop);
  layout->addLayout(under);

  connect(sweep_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  connect(metric_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
  connect(value_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(budget_, &BudgetChoice::changed, this, [this] { redraw(); });
  connect(where_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(label_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(range_, &QLineEdit::editingFinished, this, [this] { redraw(); });
  connect(show_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  note_->setText(
      QStringLiteral("Open a store with a sweep over train.lr (e.g. train.lr: "
                     "{logspace: [1e-4, 1e-1, 6]})."));
}

// Which sweep, which loss, and which of its runs (the where box).
QHBoxLayout* LrSensitivityView::buildChoiceBar() {
  sweep_ = new QComboBox;
  sweep_->setMinimumContentsLength(16);
  sweep_->setToolTip(QStringLiteral("sweeps that vary train.lr over two or more rates"));
  metric_ = new QComboBox;
  metric_->addItems(kMetrics);
  value_ = new QComboBox;  // each item's data: its experiments::RunValue
  value_->addItem(QStringLiteral("at the end"), int(experiments::RunValue::Last));
  value_->addItem(QStringLiteral("best checkpoint"), int(experiments::RunValue::Final));
  value_->addItem(QStringLiteral("best over training"), int(experiments::RunValue::Best));
  value_->setToolTip(
      QStringLiteral("each run's loss: its last logged point, the end of training (Wortsman et "
                     "al.); its final metric, the best checkpoint's; or its lowest point"));
  auto* bar = new QHBoxLayout;
  add_sweep_choosers(*bar, sweep_, metric_, value_);
  budget_ = new BudgetChoice;
  bar->addWidget(budget_);
  // Sixteen curves (8 methods x 2 depths) do not read in one plot: show part of the sweep.
  where_ = add_where_box(*bar);
  return bar;
}

// How the curves are named, the range of rates they are judged over, and what is shown.
void LrSensitivityView::addCurveOptions(QHBoxLayout* bar) {
  // Curves named "post / xavier / residual" rather than by every differing key=value.
  label_ = new QLineEdit;
  label_->setPlaceholderText(QStringLiteral("axes that differ, or e.g. model.norm+model.init"));
  label_->setClearButtonEnabled(true);
  label_->setToolTip(QStringLiteral(
      "name each curve by these axes' values, joined with + like the table's rows; other axes "
      "that differ follow as key=value"));
  auto* label_caption = new QLabel(QStringLiteral("&Label"));
  label_caption->setBuddy(label_);
  bar->addWidget(label_caption);
  bar->addWidget(label_, 1);
  // Every curve is judged over one range of rates: by default the one they all cover.
  range_ = new QLineEdit;
  range_->setPlaceholderText(QStringLiteral("common"));
  range_->setClearButtonEnabled(true);
  range_->setToolTip(QStringLiteral(
      "the learning rates every sensitivity averages over, LO:HI (e.g. 2.5e-4:8e-3); empty: "
      "the range every curve covers"));
  auto* range_caption = new QLabel(QStringLiteral("&Range"));
  range_caption->setBuddy(range_);
  bar->addWidget(range_caption);
  bar->addWidget(range_);
  // The same curves read another way: where each method's best rate sits at each depth.
  show_ = new QComboBox;
  show_->addItem(QStringLiteral("sensitivity"));
  show_->addItem(QStringLiteral("transfer across depth"));
  show_->setToolTip(QStringLiteral(
      "sensitivity: the loss against the rate; transfer across depth: each method's best rate "
      "against depth (a sweep over depth x rate)"));
  auto* show_caption = new QLabel(QStringLiteral("S&how"));
  show_caption->setBuddy(show_);
  bar->addWidget(show_caption);
  bar->addWidget(show_);
}

void LrSensitivityView::extendGrid() {
  const QString file = choose_sweep_file(this, sweep_->currentText());
  if (!file.isEmpty()) extendGridFrom(file);
}

QString LrSensitivityView::extendGridFrom(const QString& sweep_file) {
  return offer_extension(this, QStringLiteral("Extend grid"), [&] {
    const std::string out = experiments::free_extension_path(sweep_file.toStdString());
    const auto x = experiments::plan_lr_extension(
        session_->store, sweep_file.toStdString(), sweep_->currentText().toStdString(),
        metric_->currentText().toStdString(),
        static_cast<experiments::RunValue>(value_->currentData().toInt()),
        std::filesystem::absolute(out).parent_path().string());
    ExtensionOffer offer{out,   x.text,
                         x.set, x.file.runs.size(),
                         {},    QStringLiteral("one rate beyond the grid's end for")};
    for (const auto& e : x.file.extends) offer.lines << QString::fromStdString(e);
    for (const auto& n : x.notes) offer.lines << QString::fromStdString(n);
    return offer;
  });
}

// The figure above its table, and the notes.
QSplitter* LrSensitivityView::buildResults() {
  plot_ = make_figure_plot(this, figure_);
  set_figure_source(plot_, [this]() -> std::optional<plot::Figure> {
    if (transfer_) return plot::lr_transfer_figure(*transfer_);
    if (!shown_) return std::nullopt;
    return plot::lr_sensitivity_figure(*shown_);
  });
  table_ = make_results_table();
  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(plot_);
  split->addWidget(table_);
  keep_split_shares(split, {3, 1});
  return split;
}

void LrSensitivityView::saveSettings(QSettings& settings) const {
  budget_->save(settings, QStringLiteral("lr/at"));
}

void LrSensitivityView::restoreSettings(const QSettings& settings) {
  budget_->restore(settings, QStringLiteral("lr/at"));
}

void LrSensitivityView::setStore(StoreSession* session, const QString& location) {
  when_shown_->cancel();  // runs of the last store
  session_ = session;
  worker_->setDatabase(session ? location : QString());
  ++asked_;  // a read of the last store is not shown
  rates_.clear();
  rates_pending_ = false;
  ++rates_asked_;  // a read of the last store's tags is not taken
  signature_.clear();
  if (!session) {
    runs_.clear();
    sweep_->clear();
    shown_.reset();
  }
}

void LrSensitivityView::showRuns(const std::vector<db::RunRecord>& all,
                                 const std::vector<db::RunRecord>&) {
  // At the end of training only ended runs count, by their status; at a budget a running run
  // counts once it passed it, so its updates do too. (A live sweep's progress re-read a
  // sweep of 16,384 runs, ~1.3 s of a core, at every poll.)
  const std::string signature =
      budget_->budget() ? runs_signature(all) : runs_status_signature(all);
  if (signature == signature_) return;  // nothing it shows changed
  // Read again in the worker for every finished run: not while the tab is out of sight.
  // Out of sight, the runs of the first poll that changed them wait; their later updates come
  // with the first poll after the tab is shown.
  if (when_shown_->defer(runs_status_signature(all),
                         [&] { return [this, all] { showRuns(all, {}); }; }))
    return;
  signature_ = signature;
  runs_ = all;
  readRates();
}

void LrSensitivityView::readRates() {
  // Sweeps that vary the learning rate, from their runs' axis tags, read in the worker: each
  // run's once (tags are written when a run is queued), and none once its sweep has shown two
  // rates -- a poll of a sweep of thousands of runs that holds one rate reads nothing again.
  std::vector<std::pair<std::string, int64_t>> unread;  // (sweep, run)
  if (session_)
    for (const auto& r : runs_)
      if (!r.sweep.empty() && rates_[r.sweep].rates.size() < 2 && !rates_[r.sweep].read.count(r.id))
        unread.emplace_back(r.sweep, r.id);
  if (unread.empty()) return offerSweeps();
  rates_pending_ = true;
  ++rates_asked_;
  worker_->request([this, unread = std::move(unread), asked = rates_asked_,
                    known = rates_]() -> StoreWorker::Job {
    return read_then_show<std::map<std::string, SweepRates>>(
        [unread, known](const db::Store& store) {
          std::map<std::string, SweepRates> found = known;
          for (const auto& [name, run] : unread) {
            SweepRates& sweep = found[name];
            if (sweep.rates.size() >= 2) continue;
            sweep.read.insert(run);
            const auto tags = store.tags(run);
            if (auto it = tags.find(std::string("axis.") + experiments::kLrKey); it != tags.end())
              sweep.rates.insert(it->second);
          }
          return found;
        },
        [this, asked](const auto& get) {
          if (asked != rates_asked_) return;  // another store, or other runs: read again
          rates_pending_ = false;
          try {
            rates_ = std::move(get());
          } catch (const std::exception& e) {
            emit error(describe_store_error(e));
          }
          offerSweeps();
        });
  });
}

void LrSensitivityView::offerSweeps() {
  QStringList sweeps;
  for (const auto& [sweep, found] : rates_)
    if (found.rates.size() >= 2) sweeps << QString::fromStdString(sweep);
  const QString current = sweep_->currentText();
  {
    const QSignalBlocker block(sweep_);
    sweep_->clear();
    sweep_->addItems(sweeps);
    if (sweeps.contains(current)) sweep_->setCurrentText(current);
  }
  redraw();
}

bool LrSensitivityView::choose(const QString& sweep, const QString& metric, const QString& where,
                               const QString& label, const QString& range) {
  waitForResults();  // the sweeps that vary the rate, read from their runs' tags
  if (sweep_->findText(sweep) < 0 || metric_->findText(metric) < 0) return false;
  where_->setText(where);
  label_->setText(label);
  range_->setText(range);
  sweep_->setCurrentText(sweep);
  metric_->setCurrentText(metric);
  redraw();
  waitForResults();
  return shown_.has_value() || transfer_.has_value();
}

void LrSensitivityView::waitForResults() const { worker_->waitIdle(); }

bool LrSensitivityView::reading() const { return worker_->busy(); }

QString LrSensitivityView::noteText() const { return note_->text(); }

void LrSensitivityView::showTransfer(bool transfer) { show_->setCurrentIndex(transfer ? 1 : 0); }

LrSensitivityView::Read LrSensitivityView::read(const db::Store& store, const Choices& c) {
  Read out;
  if (c.transfer)
    out.transfer =
        experiments::load_lr_transfer(store, c.sweep, "", c.metric, c.value, c.where, c.label);
  else
    out.sensitivity = experiments::load_lr_sensitivity(store, c.sweep, c.metric, c.value, c.where,
                                                       c.label, c.range);
  return out;
}

void LrSensitivityView::describe(plot::Figure& figure, experiments::TextTable& table,
                                 std::vector<std::string>& notes) {
  if (transfer_) {
    figure = plot::lr_transfer_figure(*transfer_);
    table = experiments::lr_transfer_table(*transfer_);
    // The slopes, one line each, above how they were computed.
    for (const auto& row : experiments::lr_transfer_slope_table(*transfer_).rows)
      notes.push_back("slope of ln(best lr) on ln(depth), " + row[0] + ": " + row[2] +
                      (row[3] == "-" ? "" : " " + row[3]));
    notes.insert(notes.end(), transfer_->notes.begin(), transfer_->notes.end());
    return;
  }
  // The table below gives each curve's sensitivity: the legend names the curves (an export,
  // set_figure_source's, keeps them in the legend: it stands alone).
  figure = plot::lr_sensitivity_figure(*shown_, /*sensitivity_in_legend=*/false);
  table = experiments::lr_sensitivity_table(*shown_);
  notes = shown_->notes;
  // The grid's edge is judged at the runs' ends (fathom sweep extend): not at a budget.
  extend_->setEnabled(
      !budget_->budget() &&
      std::any_of(shown_->curves.begin(), shown_->curves.end(), experiments::best_at_an_end));
}

void LrSensitivityView::redraw() {
  ++asked_;  // a read of older choices is not shown
  extend_->setEnabled(false);
  shown_.reset();
  transfer_.reset();
  figure_.reset();
  plot::clear_plottables(*plot_);
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  range_->setEnabled(show_->currentIndex() == 0);  // the transfer uses every rate
  value_->setEnabled(!budget_->budget());          // at a budget: where each run stood then
  if (!session_ || sweep_->currentText().isEmpty() || rates_pending_) {
    plot_->replot();  // once the rates are read offerSweeps() redraws
    return;
  }
  if (const QString problem = budget_->problem(); !problem.isEmpty()) {
    plot_->replot();
    note_->setText(problem);
    return;
  }
  plot_->replot();
  note_->setText(QStringLiteral("Reading sweep %1 ...").arg(sweep_->currentText()));
  // The choices are taken when the read is sent: a later change replaces a read not yet sent.
  worker_->request([this]() -> StoreWorker::Job {
    Choices c;
    c.transfer = show_->currentIndex() == 1;
    c.sweep = sweep_->currentText().toStdString();
    c.metric = metric_->currentText().toStdString();
    c.value = budget_->reading(static_cast<experiments::RunValue>(value_->currentData().toInt()));
    c.where = where_->text().toStdString();
    c.label = label_->text().trimmed().toStdString();
    c.range = range_->text().trimmed().toStdString();
    return read_then_show<Read>([c](const db::Store& store) { return read(store, c); },
                                [this, asked = asked_](const auto& get) {
                                  if (asked == asked_) showRead(get);
                                });
  });
}

void LrSensitivityView::showRead(const std::function<Read&()>& get) {
  plot::Figure figure;
  experiments::TextTable t;
  std::vector<std::string> lines;
  try {
    Read& found = get();
    shown_ = std::move(found.sensitivity);
    transfer_ = std::move(found.transfer);
    describe(figure, t, lines);
  } catch (const std::exception& e) {
    shown_.reset();
    transfer_.reset();
    plot_->replot();
    if (auto bad_filter = where_error(e)) {
      note_->setText(*bad_filter);
      return;
    }
    // A label or range being typed, or a sweep without a depth axis, is no store error either.
    if (const auto* bad = dynamic_cast<const InputError*>(&e);
        bad && (bad->field() == "--label" || bad->field() == "--range" ||
                bad->field() == "--depth" || bad->field() == "--at")) {
      note_->setText(QString::fromStdString(bad->field().substr(2) + ": " + bad->message()));
      return;
    }
    note_->setText(describe_store_error(e));
    emit error(describe_store_error(e));
    return;
  }
  plot::setup_plot(*plot_, figure, screen_style(font()));
  plot_->replot();
  figure_ = std::move(figure);
  show_text_table(*table_, t);
  QStringList notes;
  for (const auto& n : lines) notes << QString::fromStdString(n);
  note_->setText(notes.join(QStringLiteral("\n")));
}

}  // namespace fathom::gui

#include "moc_lr_sensitivity_view.cpp"  // moc output for lr_sensitivity_view.h: compiled in this unit
