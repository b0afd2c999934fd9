#include "gui/run_alerts.h"

#include "db/run_status.h"
#include "experiments/run_control.h"

namespace fathom::gui {

std::vector<RunAlert> RunAlerts::changes(const std::vector<db::RunRecord>& runs, double now) {
  std::vector<RunAlert> out;
  for (const auto& run : runs) {
    std::string status = experiments::shown_status(run, now);
    auto [entry, added] = shown_.try_emplace(run.id);  // one lookup a run a poll
    const bool was_live = !added && !db::is_terminal_status(entry->second);
    if (entry->second != status) entry->second = std::move(status);
    const std::string& shown = entry->second;
    if (first_ || !was_live || !db::is_terminal_status(shown)) continue;
    if (shown == db::status::kCancelled || !announced_.insert({run.id, shown}).second) continue;
    RunAlert a;
    a.bad = shown != db::status::kFinished;
    a.title = QStringLiteral("Run %1 %2").arg(run.id).arg(QString::fromStdString(shown));
    a.message = QString::fromStdString(run.name);
    if (!run.error.empty()) a.message += QStringLiteral(": ") + QString::fromStdString(run.error);
    out.push_back(a);
  }
  first_ = false;
  return out;
}

}  // namespace fathom::gui
