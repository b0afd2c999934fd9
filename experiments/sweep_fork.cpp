#include "experiments/sweep_fork.h"

#include "base/config/fork_keys.h"
#include "base/util/error.h"
#include "base/util/strings.h"

namespace fathom::experiments {

void check_fork_run(const SweepSpec& spec, const RunConfig& parent, const RunConfig& run) {
  const std::vector<std::string> refused = unforkable_changes(parent, run);
  if (refused.empty()) return;
  const std::string& key = refused.front();
  const auto set_at = run.locations.find(key);
  const bool in_file = set_at != run.locations.end() && set_at->second.file == spec.file;
  throw InputError(spec.file, in_file ? set_at->second.line : spec.fork->line, key,
                   "a fork continues the model, optimizer state and place in the data of run " +
                       spec.fork->run + " from update " + std::to_string(spec.fork->from) +
                       "; changing " + join(refused, ", ") +
                       " would not continue them. A fork sweep's axes and set: may change " +
                       kForkableKeysText + "; for other values sweep from a config (base:)");
}

}  // namespace fathom::experiments
