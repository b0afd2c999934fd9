#include "db/run_listing.h"

#include <utility>

#include "db/run_status.h"
#include "db/store.h"

namespace fathom::db {

bool RunListing::still_valid(const RunRecord& kept, const RunRecord& state) {
  return state.status != status::kRunning && kept.status == state.status &&
         kept.lease == state.lease && kept.heartbeat_at == state.heartbeat_at &&
         kept.updates == state.updates && kept.name == state.name && kept.sweep == state.sweep &&
         kept.host == state.host && kept.device == state.device;
}

std::vector<RunRecord> RunListing::read(const Store& store) {
  std::vector<RunRecord> runs = store.list_run_states_with_metrics();  // ascending id
  std::vector<int64_t> to_read;
  // One ascending walk over the listed runs and the kept ones: the kept runs not listed were
  // deleted.
  auto kept = kept_.begin();
  for (const auto& state : runs) {
    while (kept != kept_.end() && kept->first < state.id) kept = kept_.erase(kept);
    if (kept != kept_.end() && kept->first == state.id) {
      if (!still_valid(kept->second, state)) to_read.push_back(state.id);
      ++kept;
    } else {
      to_read.push_back(state.id);
    }
  }
  kept_.erase(kept, kept_.end());
  for (auto& whole : store.runs_by_id(to_read)) {
    whole.final_metrics.clear();  // each read's own are the state's: not copied from here
    const int64_t id = whole.id;
    kept_[id] = std::move(whole);
  }
  // The final metrics are the state's, read with it: an evaluation adds them to ended runs.
  kept = kept_.begin();
  for (auto& state : runs) {
    while (kept != kept_.end() && kept->first < state.id) ++kept;
    if (kept == kept_.end() || kept->first != state.id) continue;  // deleted between the reads
    auto final_metrics = std::move(state.final_metrics);
    state = kept->second;
    state.final_metrics = std::move(final_metrics);
  }
  return runs;
}

}  // namespace fathom::db
