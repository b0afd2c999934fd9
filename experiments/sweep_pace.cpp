#include "experiments/sweep_pace.h"

#include <algorithm>
#include <map>
#include <string>

#include "base/metrics/statistics.h"
#include "db/run_status.h"
#include "db/store.h"
#include "db/update_rate.h"
#include "experiments/run_control.h"

namespace fathom::experiments {

std::optional<double> ended_runs_seconds_per_update(const db::Store& store,
                                                    const std::vector<db::RunRecord>& states,
                                                    std::size_t at_most) {
  std::vector<int64_t> ids;
  for (const auto& run : states)
    if (db::is_terminal_status(run.status)) ids.push_back(run.id);
  std::sort(ids.rbegin(), ids.rend());  // the latest first: the sweep's pace now
  ids.resize(std::min(ids.size(), at_most));
  std::vector<db::RunRecord> ended;
  for (const int64_t id : ids)
    if (auto full = store.find_run(std::to_string(id))) ended.push_back(std::move(*full));
  std::vector<double> paces;
  for (const auto& [id, pace] :
       db::seconds_per_update_by_run(db::recent_train_losses(store, ended)))
    paces.push_back(pace);
  return median(std::move(paces));
}

SweepStanding sweep_standing(const std::vector<db::RunRecord>& runs, const std::string& sweep,
                             const std::map<int64_t, int64_t>& max_updates,
                             const std::map<int64_t, double>& seconds_per_update, double now) {
  SweepStanding standing{sweep, 0, 0, 0, 0, 0, std::nullopt};
  SweepTimeLeft left;
  double updates_per_second = 0;
  for (const auto& run : runs) {
    if (run.sweep != sweep) continue;
    ++standing.runs;
    if (db::is_terminal_status(run.status)) {
      ++standing.ended;
      continue;
    }
    standing.queued += run.status == db::status::kQueued;
    const auto total = max_updates.find(run.id);
    if (total != max_updates.end())
      left.updates_left += std::max<int64_t>(0, total->second - run.updates);
    if (run.status != db::status::kRunning) continue;
    if (shown_status(run, now) != db::status::kRunning) {  // its worker silent: lost
      ++standing.lost;
      continue;
    }
    ++standing.running;
    const auto pace = seconds_per_update.find(run.id);
    if (pace != seconds_per_update.end() && pace->second > 0) {
      updates_per_second += 1 / pace->second;
      ++left.paced_runs;
    }
  }
  if (left.updates_left > 0 && updates_per_second > 0) {
    left.seconds = static_cast<double>(left.updates_left) / updates_per_second;
    standing.left = left;
  }
  return standing;
}

std::optional<SweepTimeLeft> sweep_time_left(const db::Store& store, const std::string& sweep,
                                             const std::vector<db::RunRecord>& runs, double now) {
  std::map<int64_t, int64_t> max_updates;  // of the records' own configs
  std::vector<db::RunRecord> running;
  for (const auto& run : runs) {
    if (!db::is_terminal_status(run.status)) max_updates[run.id] = db::max_updates_of(run);
    if (run.status == db::status::kRunning) running.push_back(run);
  }
  return sweep_standing(runs, sweep, max_updates,
                        db::seconds_per_update_by_run(db::recent_train_losses(store, running)), now)
      .left;
}

}  // namespace fathom::experiments
