// What the runs view's actions do to the selected runs: compare, cancel, resume, reproduce,
// delete, prune, cancel their sweep. Training goes through the `fathom` command line, detached
// (gui/run_actions.h); the view itself only asks and reports.
#include <functional>
#include <set>

#include <QMessageBox>

#include "db/run_status.h"
#include "gui/compare_window.h"
#include "gui/prune_dialog.h"
#include "gui/run_actions.h"
#include "gui/runs_view.h"

namespace fathom::gui {

void RunsView::compareSelected() {
  std::vector<int64_t> ids;
  for (const auto& run : selectedRuns()) ids.push_back(run.id);
  if (ids.size() < 2) return;
  QString problem;
  if (!open_compare_window(this, db_location_, ids, &problem)) emit error(problem);
}

void RunsView::cancelSelected() {
  const auto runs = selectedRuns();
  if (runs.empty()) return;
  if (QMessageBox::question(
          this, QStringLiteral("Cancel runs"),
          QStringLiteral("Cancel %1 selected run(s)? Queued runs will not start; "
                         "running workers are stopped wherever they run (this machine, Slurm).")
              .arg(runs.size())) != QMessageBox::Yes)
    return;
  try {
    QStringList problems;
    const int n = cancel_runs(db_location_, runs, &problems);
    emit message(QStringLiteral("%1 run(s) cancelled").arg(n));
    if (!problems.isEmpty()) emit error(problems.join(QLatin1Char('\n')));
  } catch (const std::exception& e) {
    emit error(describe_store_error(e));
  }
  refresh();
}

// `start` (a detached `fathom` command, gui/run_actions.h) for each selected run `eligible`
// takes, each start's message said.
void RunsView::startForEachSelected(const std::function<bool(const db::RunRecord&)>& eligible,
                                    bool (*start)(const QString&, int64_t, QString*)) {
  for (const auto& run : selectedRuns()) {
    if (!eligible(run)) continue;
    QString text;
    if (start(db_location_, run.id, &text))
      emit message(text);
    else
      emit error(text);
  }
}

void RunsView::resumeSelected() {
  startForEachSelected([](const db::RunRecord& r) { return db::status::is_resumable(r.status); },
                       &resume_run);
}

// A new run of each selected run's stored config, whose verdict (tag reproduction) says whether
// its curves equal the original's.
void RunsView::reproduceSelected() { startForEachSelected(&can_reproduce, &reproduce_run); }

void RunsView::deleteSelected() {
  const auto runs = selectedRuns();
  if (runs.empty() || db_location_.isEmpty()) return;
  QStringList names;
  for (const auto& r : runs)
    names << QStringLiteral("#%1 %2").arg(r.id).arg(QString::fromStdString(r.name));
  if (names.size() > 8) names = names.mid(0, 8) << QStringLiteral("...");
  QMessageBox box(
      QMessageBox::Warning, QStringLiteral("Delete runs"),
      QStringLiteral("Delete %1 run(s) and everything recorded about them (metrics, final metrics, "
                     "tags, analyses) and their checkpoints on disk? This cannot be undone.\n\n%2")
          .arg(runs.size())
          .arg(names.join('\n')),
      QMessageBox::Yes | QMessageBox::Cancel, this);
  box.setDefaultButton(QMessageBox::Cancel);
  if (box.exec() != QMessageBox::Yes) return;
  QStringList errors;
  try {
    const int n = delete_runs(db_location_, runs, &errors);
    emit message(QStringLiteral("%1 run(s) deleted").arg(n));
  } catch (const std::exception& e) {
    errors << describe_store_error(e);
  }
  if (!errors.isEmpty()) emit error(errors.join('\n'));
  table_->clearSelection();
  refresh();
}

void RunsView::pruneSelected() {
  if (selectedRuns().empty() || db_location_.isEmpty()) return;
  QString done;
  QStringList errors;
  prune_with_dialog(this, db_location_, selectedRuns(), &done, &errors);
  if (!done.isEmpty()) emit message(done);
  if (!errors.isEmpty()) emit error(errors.join('\n'));
  refresh();
}

void RunsView::cancelSweep() {
  std::set<QString> sweeps;
  for (const auto& r : selectedRuns())
    if (!r.sweep.empty()) sweeps.insert(QString::fromStdString(r.sweep));
  for (const auto& sweep : sweeps) {
    if (QMessageBox::question(
            this, QStringLiteral("Cancel sweep"),
            QStringLiteral("Cancel every queued and running run of sweep %1?").arg(sweep)) !=
        QMessageBox::Yes)
      continue;
    QString text;
    if (cancel_sweep(db_location_, sweep, &text))
      emit message(text);
    else
      emit error(text);
  }
}

}  // namespace fathom::gui
