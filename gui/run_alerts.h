#pragma once
// The desktop app's alerts (issue 59.3): while a window is open on a store, each run it saw
// running (or queued) that then diverged, failed, crashed (also a lost worker: a heartbeat
// gone silent, experiments/run_control.h) or finished is announced once, as a system
// notification from the tray icon (QSystemTrayIcon::showMessage; MainWindow). The same
// events the scheduler sends a sweep's notify.command for (experiments/notify.h); runs that had
// ended before the window first saw them are not announced.
#include <QString>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "db/records.h"

namespace fathom::gui {

struct RunAlert {
  QString title, message;
  bool bad = false;  // diverged, failed, crashed: a warning rather than information
};

class RunAlerts {
 public:
  // The alerts for `runs` (a poll's listing) since the previous call; none at the first call.
  std::vector<RunAlert> changes(const std::vector<db::RunRecord>& runs, double now);

 private:
  bool first_ = true;
  std::unordered_map<int64_t, std::string> shown_;       // each run's status as last shown
  std::set<std::pair<int64_t, std::string>> announced_;  // (run, status): once each
};

}  // namespace fathom::gui
