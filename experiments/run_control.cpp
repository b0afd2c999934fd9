#include "experiments/run_control.h"

#include <cmath>

#include "experiments/launcher_registry.h"
#include "db/run_status.h"

namespace fathom {

CancelReport cancel_runs(db::Store& store, const std::vector<db::RunRecord>& runs,
                         const std::string& reason) {
  CancelReport report;
  for (const auto& listed : runs) {
    // The status now, not when the caller listed it: a worker may have ended it meanwhile.
    const auto run = store.find_run(std::to_string(listed.id));
    if (!run || (run->status != db::status::kQueued && run->status != db::status::kRunning)) continue;
    // Cancelled first: a worker told to stop then sees it and does not requeue its run.
    store.finish_run(run->id, db::status::kCancelled, reason);
    ++report.cancelled;
    if (run->status != db::status::kRunning) continue;
    if (auto problem = stop_worker(*run, store.tags(run->id))) report.problems.push_back(*problem);
  }
  return report;
}

CancelReport cancel_sweep(db::Store& store, const std::string& sweep, const std::string& reason) {
  const auto runs = store.list_runs(sweep);
  CancelReport report = cancel_runs(store, runs, reason);
  std::vector<WorkerTags> tags;
  for (const auto& run : runs) tags.push_back(store.tags(run.id));
  auto more = cancel_pending_workers(tags);
  report.problems.insert(report.problems.end(), more.begin(), more.end());
  return report;
}

std::string shown_status(const db::RunRecord& run, double now, double timeout_s) {
  if (run.status == db::status::kRunning && run.heartbeat_at > 0 && now - run.heartbeat_at > timeout_s)
    return db::status::kCrashed;
  return run.status;
}

std::optional<std::string> lost_worker(const db::Store& store, const db::RunRecord& listed, double now,
                                       double timeout_s) {
  if (listed.status != db::status::kRunning) return std::nullopt;
  // `listed` may be older than the worker's last heartbeat or its recorded end: judge the run
  // as it is stored now.
  auto run = store.find_run(std::to_string(listed.id));
  if (!run || run->status != db::status::kRunning) return std::nullopt;
  if (auto gone = worker_gone(*run, store.tags(run->id))) {
    // The worker may have recorded its end just before it exited: lost only if still running.
    run = store.find_run(std::to_string(listed.id));
    if (run && run->status == db::status::kRunning) return gone;
    return std::nullopt;
  }
  const double silent = now - run->heartbeat_at;
  if (run->heartbeat_at > 0 && silent > timeout_s)
    return "no heartbeat for " + std::to_string(static_cast<long long>(std::round(silent))) +
           " s (worker on " + (run->host.empty() ? std::string("an unknown host") : run->host) + ")";
  return std::nullopt;
}

}  // namespace fathom
