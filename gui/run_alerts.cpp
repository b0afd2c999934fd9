#include "gui/run_alerts.h"

#include "db/run_status.h"
#include "experiments/run_control.h"

namespace fathom::gui {

std::vector<RunAlert> RunAlerts::changes(const std::vector<db::RunRecord>& runs, double now) {
  std::vector<RunAlert> out;
  for (const auto& run : runs) {
    const std::string status = experiments::shown_status(run, now);
    auto before = shown_.find(run.id);
    const bool was_live = before != shown_.end() && !db::is_terminal_status(before->second);
    shown_[run.id] = status;
    if (first_ || !was_live || !db::is_terminal_status(status)) continue;
    if (status == db::status::kCancelled || !announced_.insert({run.id, status}).second) continue;
    RunAlert a;
    a.bad = status != db::status::kFinished;
    a.title = QStringLiteral("Run %1 %2").arg(run.id).arg(QString::fromStdString(status));
    a.message = QString::fromStdString(run.name);
    if (!run.error.empty()) a.message += QStringLiteral(": ") + QString::fromStdString(run.error);
    out.push_back(a);
  }
  first_ = false;
  return out;
}

}  // namespace fathom::gui
