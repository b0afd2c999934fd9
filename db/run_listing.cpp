#include "db/run_listing.h"

#include <set>
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
  std::vector<RunRecord> runs = store.list_run_states_with_metrics();
  std::vector<int64_t> to_read;
  std::set<int64_t> listed;
  for (const auto& state : runs) {
    listed.insert(state.id);
    const auto kept = kept_.find(state.id);
    if (kept == kept_.end() || !still_valid(kept->second, state)) to_read.push_back(state.id);
  }
  for (auto it = kept_.begin(); it != kept_.end();)  // deleted runs
    it = listed.count(it->first) ? std::next(it) : kept_.erase(it);
  for (auto& whole : store.runs_by_id(to_read)) {
    const int64_t id = whole.id;
    kept_[id] = std::move(whole);
  }
  // The final metrics are the state's, read with it: an evaluation adds them to ended runs.
  for (auto& state : runs) {
    const auto kept = kept_.find(state.id);
    if (kept == kept_.end()) continue;  // deleted between the two reads: its state, once
    auto final_metrics = std::move(state.final_metrics);
    state = kept->second;
    state.final_metrics = std::move(final_metrics);
  }
  return runs;
}

}  // namespace fathom::db
