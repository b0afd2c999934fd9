#include "gui/fork_parents.h"

#include <algorithm>
#include <set>

#include "db/fork_tags.h"

namespace fathom::gui {

std::vector<int64_t> fork_parents_to_draw(
    const std::vector<db::RunRecord>& shown,
    const std::map<int64_t, std::map<std::string, std::string>>& tags) {
  std::set<int64_t> shown_ids;  // a sweep's thousands of runs: no scan per fork
  for (const auto& run : shown) shown_ids.insert(run.id);
  std::vector<int64_t> parents;
  for (const auto& run : shown) {
    const auto run_tags = tags.find(run.id);
    if (run_tags == tags.end()) continue;
    const auto origin = db::fork_origin(run_tags->second);
    if (!origin) continue;
    if (shown_ids.count(origin->parent) ||
        std::find(parents.begin(), parents.end(), origin->parent) != parents.end())
      continue;
    parents.push_back(origin->parent);
    if (parents.size() == kParentsDrawn) break;
  }
  return parents;
}

}  // namespace fathom::gui
