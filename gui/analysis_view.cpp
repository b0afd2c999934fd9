#include "gui/analysis_view.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/analysis_panel.h"
#include "gui/analysis_runner.h"
#include "gui/checkpoint_choices.h"
#include "gui/export_menu.h"
#include "gui/store_session.h"
#include "plot/analysis_kinds.h"

namespace fathom::gui {
namespace {

const plot::AnalysisKind& kind_named(const QString& name) {
  return plot::find_analysis_kind(name.toStdString(), "analysis view");
}

}  // namespace

AnalysisView::AnalysisView(QWidget* parent) : QWidget(parent) {
  QSplitter* split = buildResults();
  buildComputeBar();
  layOut(split);
  connectParts();
  kindChanged();
  setRuns({});
}

// The results listed beside the one shown (the analysis panel).
QSplitter* AnalysisView::buildResults() {
  subject_ = new QLabel;
  all_ = new QCheckBox(QStringLiteral("All &runs"));
  all_->setToolTip(QStringLiteral("list the results of every run, not only the selected ones"));
  results_ = new QTableWidget(0, 6);
  results_->setHorizontalHeaderLabels({"id", "run", "kind", "checkpoint", "created", "took (s)"});
  results_->verticalHeader()->hide();
  results_->setSelectionBehavior(QAbstractItemView::SelectRows);
  results_->setSelectionMode(QAbstractItemView::SingleSelection);
  results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  results_->horizontalHeader()->setStretchLastSection(true);
  results_->setMinimumWidth(300);
  add_export_menu(results_);

  panel_ = new AnalysisPanel;
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  auto* split = new QSplitter;
  split->addWidget(results_);
  split->addWidget(scroll);
  split->setStretchFactor(1, 1);
  return split;
}

// What to compute on the selected run, and how it goes.
void AnalysisView::buildComputeBar() {
  kind_ = new QComboBox;
  for (const auto& kind : plot::analysis_kinds()) kind_->addItem(QString::fromStdString(kind.name));
  checkpoint_ = new QComboBox;
  offerCheckpoints();
  checkpoint_->setToolTip(
      QStringLiteral("which model of the run: best, last, a kept update, the mean of the last "
                     "kept, or init (output-shift always builds fresh models)"));
  options_ = new QLineEdit;
  options_->setPlaceholderText(QStringLiteral("more options, e.g. --set model.encoder_layers=12"));
  compute_ = new QPushButton(QStringLiteral("C&ompute"));
  compute_->setToolTip(
      QStringLiteral("run `fathom analyze` on the selected run in a separate process"));
  cancel_ = new QPushButton(QStringLiteral("Cancel"));
  progress_ = new QProgressBar;
  progress_->setMaximumWidth(160);
  progress_->setRange(0, 100);
  progress_->setValue(0);
  status_ = new QLabel;
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  runner_ = new AnalysisRunner(this);
}

void AnalysisView::layOut(QSplitter* split) {
  auto* top = new QHBoxLayout;
  top->addWidget(subject_, 1);
  top->addWidget(all_);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Analysis")));
  bar->addWidget(kind_);
  bar->addWidget(new QLabel(QStringLiteral("Checkpoint")));
  bar->addWidget(checkpoint_);
  bar->addWidget(options_, 1);
  bar->addWidget(compute_);
  bar->addWidget(progress_);
  bar->addWidget(cancel_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);
  layout->addLayout(bar);
  layout->addWidget(status_);
}

// What the controls do, and the runner's progress and end.
void AnalysisView::connectParts() {
  connect(all_, &QCheckBox::toggled, this, &AnalysisView::reload);
  connect(results_, &QTableWidget::itemSelectionChanged, this, &AnalysisView::showSelected);
  connect(kind_, &QComboBox::currentTextChanged, this, &AnalysisView::kindChanged);
  connect(compute_, &QPushButton::clicked, this, &AnalysisView::compute);
  connect(cancel_, &QPushButton::clicked, this, &AnalysisView::cancel);
  tick_.setInterval(200);
  connect(&tick_, &QTimer::timeout, this, [this] {
    status_->setText(
        QStringLiteral("%1 s  %2").arg(runner_->elapsedMs() / 1000.0, 0, 'f', 1).arg(last_line_));
  });
  connect(runner_, &AnalysisRunner::progress, this, [this](int percent, const QString& line) {
    last_line_ = line;
    if (percent >= 0) {
      progress_->setRange(0, 100);
      progress_->setValue(percent);
    }
  });
  connect(runner_, &AnalysisRunner::finished, this,
          [this](bool ok, const QString& text, qint64 id) {
            tick_.stop();
            progress_->setRange(0, 100);
            progress_->setValue(ok ? 100 : 0);
            status_->setText(text);
            config_dir_.reset();
            updateButtons();
            if (!ok) {
              if (!text.startsWith(QStringLiteral("cancelled"))) emit error(text);
              return;
            }
            emit message(text);
            reload();
            if (!showAnalysis(id)) {  // a config analysis while only the run's are listed
              all_->setChecked(true);
              showAnalysis(id);
            }
          });
}

QString AnalysisView::statusText() const { return status_->text(); }

void AnalysisView::setSession(StoreSession* session, const QString& db_location) {
  session_ = session;
  db_location_ = db_location;
  shown_.reset();
  offerCheckpoints();
  reload();
}

void AnalysisView::setRuns(const std::vector<db::RunRecord>& runs) {
  std::vector<int64_t> before, after;
  for (const auto& r : runs_) before.push_back(r.id);
  for (const auto& r : runs) after.push_back(r.id);
  // The selected run's checkpoints again when it changed or trained on (it keeps more).
  const bool moved = runs.size() == 1 && runs_.size() == 1 &&
                     (runs[0].updates != runs_[0].updates || runs[0].status != runs_[0].status);
  runs_ = runs;
  if (before != after || moved) offerCheckpoints();
  if (runs_.size() == 1)
    subject_->setText(
        QStringLiteral("Run #%1 %2").arg(runs_[0].id).arg(QString::fromStdString(runs_[0].name)));
  else if (runs_.empty())
    subject_->setText(
        QStringLiteral("Select a run in the Runs view to list and compute its analyses."));
  else
    subject_->setText(QStringLiteral("%1 runs selected (Compute needs one)").arg(runs_.size()));
  updateButtons();
  if (before != after) reload();
}

// The selected run's models (checkpoint_choices.h), best and last even before it wrote them,
// and init; best, last and init alone without one run.
void AnalysisView::offerCheckpoints() {
  run_artifacts_.clear();
  if (session_ && runs_.size() == 1) {
    try {
      run_artifacts_ = session_->store.artifacts(runs_.front().id);
    } catch (const std::exception& e) {
      emit error(describe_store_error(e));
    }
  }
  const QString chosen = checkpoint_->currentData().toString();
  set_checkpoint_choices(checkpoint_, run_artifacts_);
  for (const char* name : {"last", "best"})
    if (checkpoint_->findData(name) < 0) checkpoint_->insertItem(0, name, name);
  checkpoint_->addItem(QStringLiteral("init"), QStringLiteral("init"));
  const int again = checkpoint_->findData(chosen);
  checkpoint_->setCurrentIndex(again >= 0 ? again : checkpoint_->findData(QStringLiteral("best")));
}

void AnalysisView::poll() {
  if (!session_) return;
  try {
    if (session_->store.last_analysis_id() != newest_listed_) reload();
  } catch (const std::exception& e) {
    emit error(describe_store_error(e));
  }
}

void AnalysisView::reload() {
  records_.clear();
  newest_listed_ = -1;
  if (session_) {
    try {
      newest_listed_ = session_->store.last_analysis_id();
      if (all_->isChecked()) {
        records_ = session_->store.list_analyses();
      } else {
        for (const auto& run : runs_)
          for (auto& r : session_->store.list_analyses(run.id)) records_.push_back(std::move(r));
        for (auto& r : session_->store.list_analyses())  // config analyses belong to no run
          if (!r.run_id) records_.push_back(std::move(r));
      }
    } catch (const std::exception& e) {
      emit error(describe_store_error(e));
    }
  }
  std::reverse(records_.begin(), records_.end());  // newest first
  const std::optional<int64_t> keep = shown_;
  QSignalBlocker block(results_);
  results_->setRowCount(static_cast<int>(records_.size()));
  for (int i = 0; i < static_cast<int>(records_.size()); ++i) {
    const auto& r = records_[i];
    const QStringList cells = {
        QString::number(r.id),
        r.run_id ? QString::number(*r.run_id) : QStringLiteral("-"),
        QString::fromStdString(r.kind),
        r.checkpoint.empty() ? QStringLiteral("-") : QString::fromStdString(r.checkpoint),
        QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.created_at))
            .toString(QStringLiteral("yyyy-MM-dd hh:mm")),
        QString::number(r.elapsed_s, 'f', 1)};
    for (int c = 0; c < cells.size(); ++c) results_->setItem(i, c, new QTableWidgetItem(cells[c]));
  }
  results_->resizeColumnsToContents();
  shown_.reset();
  if (keep && showAnalysis(*keep)) return;
  // Otherwise the newest result, so a run's stored analysis is on screen without a click.
  if (!records_.empty() && showAnalysis(records_.front().id)) return;
  panel_->clear(emptyReason());
}

QString AnalysisView::emptyReason() const {
  if (!session_) return QStringLiteral("Open a run store to see its analyses.");
  size_t stored = 0;
  try {
    stored = session_->store.list_analyses().size();
  } catch (const std::exception&) {
  }
  const QString compute = QStringLiteral(
      "Compute one below: choose an analysis and a checkpoint (beta of the best "
      "checkpoint takes seconds; docs/analyses.md says what each shows).");
  if (stored == 0) return QStringLiteral("No analysis is stored yet. ") + compute;
  const QString others =
      QStringLiteral("%1 result%2 of other runs %3 stored: tick All runs to list them.")
          .arg(stored)
          .arg(stored == 1 ? "" : "s")
          .arg(stored == 1 ? "is" : "are");
  if (runs_.empty())
    return QStringLiteral("No run selected (select one in the Runs view). ") + others;
  return QStringLiteral("No analysis of the selected run%1 is stored. %2\n%3")
      .arg(runs_.size() == 1 ? "" : "s", others, compute);
}

bool AnalysisView::showAnalysis(int64_t id) {
  for (int i = 0; i < static_cast<int>(records_.size()); ++i) {
    if (records_[i].id != id) continue;
    results_->selectRow(i);  // draws it through showSelected
    if (shown_ != id) showSelected();
    return true;
  }
  return false;
}

void AnalysisView::showSelected() {
  const auto rows = results_->selectionModel()->selectedRows();
  if (rows.isEmpty() || rows.front().row() >= static_cast<int>(records_.size())) return;
  const auto& record = records_[rows.front().row()];
  shown_ = record.id;
  panel_->showRecord(record);
}

void AnalysisView::kindChanged() {
  const QString name = kind_->currentText();  // named: GCC 13+ -Wdangling-reference
  const plot::AnalysisKind& kind = kind_named(name);
  options_->setText(QString::fromStdString(kind.starting_options));
  checkpoint_->setEnabled(!kind.builds_own_models);
}

void AnalysisView::updateButtons() {
  const bool busy = runner_->running();
  compute_->setEnabled(!busy && runs_.size() == 1 && session_);
  cancel_->setEnabled(busy);
  kind_->setEnabled(!busy);
}

QStringList AnalysisView::computeArguments(QString* error) {
  if (runs_.size() != 1) {
    *error = QStringLiteral("select one run to analyse");
    return {};
  }
  const auto& run = runs_.front();
  const QString kind = kind_->currentText();
  QStringList args{kind};
  if (kind_named(kind).builds_own_models) {
    // It builds fresh models from configs: the run's own config, as stored.
    config_dir_ = std::make_unique<QTemporaryDir>();
    const QString path = config_dir_->filePath(QStringLiteral("run-%1.yaml").arg(run.id));
    QFile file(path);
    if (!config_dir_->isValid() || !file.open(QIODevice::WriteOnly) ||
        file.write(QByteArray::fromStdString(run.config_yaml)) < 0) {
      *error = QStringLiteral("cannot write the run's config for %1").arg(kind);
      return {};
    }
    args << path;
  } else {
    args << QString::number(run.id) << checkpoint_arguments(checkpoint_->currentData().toString());
  }
  args << QProcess::splitCommand(options_->text());
  return args;
}

std::optional<db::AnalysisRecord> AnalysisView::storedDuplicate() const {
  if (!session_ || runs_.size() != 1) return std::nullopt;
  const QString kind = kind_->currentText();
  if (kind_named(kind).builds_own_models) return std::nullopt;  // from configs, not the run
  try {
    const std::string model =
        recorded_checkpoint(checkpoint_->currentData().toString(), run_artifacts_);
    auto stored = session_->store.list_analyses(runs_.front().id, kind.toStdString());
    for (auto it = stored.rbegin(); it != stored.rend(); ++it)
      if (!model.empty() && it->checkpoint == model) return *it;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

bool AnalysisView::confirmRecompute() {
  const std::optional<db::AnalysisRecord> stored = storedDuplicate();
  if (!stored) return true;
  QMessageBox box(
      QMessageBox::Question, QStringLiteral("Compute again?"),
      QStringLiteral("Run %1 already has a %2 result of its %3 checkpoint: analysis "
                     "%4, computed %5.\nComputing again stores a second result "
                     "beside it (e.g. after the run trained on, or with other "
                     "options).")
          .arg(*stored->run_id)
          .arg(QString::fromStdString(stored->kind), QString::fromStdString(stored->checkpoint))
          .arg(stored->id)
          .arg(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(stored->created_at))
                   .toString(QStringLiteral("yyyy-MM-dd hh:mm"))),
      QMessageBox::Cancel, this);
  QPushButton* show = box.addButton(QStringLiteral("Show stored"), QMessageBox::AcceptRole);
  QPushButton* again = box.addButton(QStringLiteral("Compute again"), QMessageBox::ActionRole);
  box.setDefaultButton(show);
  box.exec();
  if (box.clickedButton() == again) return true;
  if (box.clickedButton() == show && !showAnalysis(stored->id)) {
    all_->setChecked(true);
    showAnalysis(stored->id);
  }
  return false;
}

void AnalysisView::compute() {
  if (!session_ || runner_->running()) return;
  if (!confirmRecompute()) return;
  QString why;
  const QStringList args = computeArguments(&why);
  if (args.isEmpty() || !runner_->start(db_location_, args, &why)) {
    status_->setText(why);
    emit error(why);
    return;
  }
  progress_->setRange(0, 0);  // busy until the CLI prints a progress line
  last_line_.clear();
  tick_.start();
  updateButtons();
}

void AnalysisView::cancel() { runner_->cancel(); }

}  // namespace fathom::gui

#include "moc_analysis_view.cpp"  // moc output for analysis_view.h: compiled in this unit
