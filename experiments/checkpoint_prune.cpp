#include "experiments/checkpoint_prune.h"

#include <filesystem>

#include <cstdlib>

#include "db/run_json.h"
#include "db/run_status.h"

namespace fathom::experiments {
namespace fs = std::filesystem;
namespace {

// A run that may still train keeps what its final evaluation will average (`keep` < 0 removes
// nothing).
std::string why_not_pruned(const db::RunRecord& run, int keep) {
  if (db::status::is_active(run.status)) return "it is " + run.status + " and may still train";
  if (!db::status::is_resumable(run.status)) return "";
  const long averages = std::strtol(
      db::config_value(run.config_json, "eval.average_checkpoints").c_str(), nullptr, 10);
  if (keep >= 0 && averages > keep)
    return "it is " + run.status + " and may be resumed, and its final evaluation averages " +
           std::to_string(averages) + " kept checkpoints (eval.average_checkpoints)";
  return "";
}

}  // namespace

PrunePlan plan_prune(const db::Store& store, const db::StorePaths& paths, const db::RunRecord& run,
                     int keep) {
  PrunePlan p{run, why_not_pruned(run, keep), {}, {}, 0};
  const auto all = db::kept_checkpoints(store.artifacts(run.id), paths.run_dir(run.id));
  const size_t stay = keep < 0 ? all.size() : static_cast<size_t>(keep);
  const size_t go = all.size() > stay ? all.size() - stay : 0;
  for (size_t i = 0; i < all.size(); ++i) (i < go ? p.removed : p.kept).push_back(all[i]);
  for (const auto& k : p.removed) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(k.path, ec);
    if (!ec) p.bytes += size;
  }
  return p;
}

std::string apply_prune(db::Store& store, const PrunePlan& plan) {
  if (!plan.skipped.empty() || plan.removed.empty()) return "";
  std::vector<std::string> kinds;
  for (const auto& k : plan.removed) kinds.push_back(db::kept_checkpoint_kind(k.update));
  store.remove_artifacts(plan.run.id, kinds);  // re-checks the status under the write lock
  std::string failed;
  for (const auto& k : plan.removed) {
    std::error_code ec;
    fs::remove(k.path, ec);
    if (ec) failed += (failed.empty() ? "could not remove " : ", ") + k.path + ": " + ec.message();
  }
  return failed;
}

}  // namespace fathom::experiments
