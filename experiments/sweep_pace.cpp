#include "experiments/sweep_pace.h"

#include <algorithm>
#include <string>

#include "base/metrics/statistics.h"
#include "db/run_status.h"
#include "db/store.h"
#include "db/update_rate.h"

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
  for (const auto& [id, points] : db::recent_train_losses(store, ended))
    if (auto pace = db::seconds_per_update(points)) paces.push_back(*pace);
  return median(std::move(paces));
}

}  // namespace fathom::experiments
