#include "gui/runs_notes.h"

#include "experiments/run_control.h"
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

QString sweep_time_note(const experiments::SweepStanding& standing) {
  if (standing.ended == standing.runs) return {};
  const QString note = QStringLiteral("Sweep %1: %2 of %3 runs ended, %4 running, %5 queued; ")
                           .arg(QString::fromStdString(standing.sweep))
                           .arg(standing.ended)
                           .arg(standing.runs)
                           .arg(standing.running)
                           .arg(standing.queued);
  // A lost run's worker is silent (shown crashed in the table): its updates are still to make,
  // its pace is not counted.
  const QString lost = standing.lost == 0
                           ? QString()
                           : QStringLiteral("%1 lost (no heartbeat for over %2, shown crashed), ")
                                 .arg(standing.lost)
                                 .arg(duration_text(experiments::kDefaultHeartbeatTimeout));
  if (!standing.left)
    return note + lost +
           (standing.running == 0 && standing.lost > 0
                ? QStringLiteral("no run is training now: no time left to tell")
                : QStringLiteral(
                      "its time left is known once a running run has logged two training losses"));
  return note + lost +
         QStringLiteral(
             "about %1 left at its running runs' pace now (%2 updates to make, the queued "
             "runs taken as large as those running)")
             .arg(duration_text(standing.left->seconds))
             .arg(standing.left->updates_left);
}

}  // namespace fathom::gui
