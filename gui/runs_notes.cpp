#include "gui/runs_notes.h"

#include "db/run_status.h"
#include "experiments/sweep_pace.h"
#include "gui/run_state_text.h"

namespace fathom::gui {

QString empty_store_hint(bool store_open, const QString& store_shown, bool no_runs) {
  if (!store_open)
    return QStringLiteral(
        "No run store is open. File > Open run store... (Ctrl+O) opens a SQLite store, or makes "
        "a new one where you name a file that does not exist yet; File > Open URL... a "
        "PostgreSQL one.");
  if (!no_runs) return {};
  return QStringLiteral(
             "This store has no runs yet. Start some from the Sweep editor (Ctrl+3: open a sweep "
             "YAML, e.g. configs/main-job.yaml, then Sweep > Start), or from a terminal:\n"
             "    fathom --db %1 sweep configs/quickstart.yaml\n"
             "Runs appear here as they are queued; the Dashboard (Ctrl+2) follows the ones that "
             "train.")
      .arg(store_shown);
}

QString sweep_time_note(const QString& sweep, const std::vector<db::RunRecord>& runs,
                        const std::map<int64_t, int64_t>& max_updates,
                        const std::map<int64_t, double>& seconds_per_update) {
  const std::string name = sweep.toStdString();
  std::vector<db::RunRecord> of_sweep;
  int ended = 0, running = 0, queued = 0;
  for (const auto& run : runs) {
    if (run.sweep != name) continue;
    of_sweep.push_back(run);
    ended += db::is_terminal_status(run.status);
    running += run.status == db::status::kRunning;
    queued += run.status == db::status::kQueued;
  }
  if (ended == static_cast<int>(of_sweep.size())) return {};
  QString note = QStringLiteral("Sweep %1: %2 of %3 runs ended, %4 running, %5 queued; ")
                     .arg(sweep)
                     .arg(ended)
                     .arg(of_sweep.size())
                     .arg(running)
                     .arg(queued);
  const auto left = experiments::sweep_time_left(of_sweep, max_updates, seconds_per_update);
  if (!left)
    return note + QStringLiteral(
                      "its time left is known once a running run has logged two "
                      "training losses");
  return note + QStringLiteral(
                    "about %1 left at its running runs' pace now (%2 updates to make, "
                    "the queued runs taken as large as those running)")
                    .arg(duration_text(left->seconds))
                    .arg(left->updates_left);
}

}  // namespace fathom::gui
