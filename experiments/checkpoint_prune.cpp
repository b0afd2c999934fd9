#include "experiments/checkpoint_prune.h"

#include <cstdlib>
#include <filesystem>

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
  // The best may be any of them: only every kept checkpoint keeps them.
  if (keep >= 0 && averages > 0 && db::config_value(run.config_json, "eval.average_by") == "best")
    return "it is " + run.status + " and may be resumed, and its final evaluation averages the " +
           std::to_string(averages) + " best of every kept checkpoint (eval.average_by best)";
  return "";
}

std::vector<std::string> paths_of(const std::vector<db::KeptCheckpoint>& kept) {
  std::vector<std::string> paths;
  for (const auto& k : kept) paths.push_back(k.path);
  return paths;
}

// Sets the plan's fallback resume point to remove: the recorded one of a run that ended with a
// result, when the resume point in front of it is on disk. (The unrecorded
// checkpoint_previous.pt of runs from before rows named it is left: without a row, the store
// could not refuse a resume started meanwhile.)
void plan_fallback(PrunePlan& p, const std::vector<db::Artifact>& rows, const std::string& dir) {
  if (db::status::is_active(p.run.status) || db::status::is_resumable(p.run.status)) return;
  const db::ResumePoints points = db::resume_points(rows, dir);
  if (!points.previous_has_row || !db::file_bytes(points.last) || points.previous == points.last)
    return;
  p.previous = points.previous;
  p.last = points.last;
  // A resume point at a kept update is a second name for that checkpoint (core/train/
  // training_records.cpp): what it frees depends on whether the kept one goes too.
  auto both = paths_of(p.removed);
  both.push_back(p.previous);
  p.previous_bytes = db::bytes_freed_by_removing(both) - p.bytes;
}

// The kept checkpoints that stay and were written with the optimizer state: the run's config kept
// it (train.keep_checkpoint_optimizer; absent: runs from before the key did) and no prune has
// rewritten them yet (a rewrite is named <kind>.model.g<lease>.pt).
std::vector<db::KeptCheckpoint> with_optimizer_state(const db::RunRecord& run,
                                                     const std::vector<db::KeptCheckpoint>& kept) {
  if (db::config_value(run.config_json, "train.keep_checkpoint_optimizer") == "false") return {};
  std::vector<db::KeptCheckpoint> out;
  for (const auto& k : kept)
    if (db::file_bytes(k.path) && k.path.find(".model.g") == std::string::npos) out.push_back(k);
  return out;
}

}  // namespace

std::string model_only_file_name(const db::KeptCheckpoint& k, int64_t lease) {
  return (fs::path(k.path).parent_path() /
          (db::kept_checkpoint_kind(k.update) + ".model.g" + std::to_string(lease) + ".pt"))
      .string();
}

PrunePlan plan_prune(const db::Store& store, const db::StorePaths& paths, const db::RunRecord& run,
                     const PruneChoice& choice) {
  PrunePlan p;
  p.run = run;
  p.skipped = why_not_pruned(run, choice.keep);
  const auto rows = store.artifacts(run.id);
  const std::string dir = paths.run_dir(run.id);
  const auto all = db::kept_checkpoints(rows, dir);
  const size_t stay = choice.keep < 0 ? all.size() : static_cast<size_t>(choice.keep);
  const size_t go = all.size() > stay ? all.size() - stay : 0;
  for (size_t i = 0; i < all.size(); ++i) (i < go ? p.removed : p.kept).push_back(all[i]);
  p.bytes = db::bytes_freed_by_removing(paths_of(p.removed));
  if (choice.model_only && p.skipped.empty()) {
    p.to_slim = with_optimizer_state(run, p.kept);
    for (const auto& k : p.to_slim) p.to_slim_bytes += db::file_bytes(k.path).value_or(0);
  }
  if (choice.previous && p.skipped.empty()) plan_fallback(p, rows, dir);
  return p;
}

std::string apply_prune(db::Store& store, const PrunePlan& plan) {
  if (!plan.skipped.empty() || (plan.removed.empty() && !plan.removes_previous())) return "";
  std::vector<std::string> kinds, files;
  for (const auto& k : plan.removed) {
    kinds.push_back(db::kept_checkpoint_kind(k.update));
    files.push_back(k.path);
  }
  if (plan.removes_previous()) {
    kinds.push_back("checkpoint_previous");
    files.push_back(plan.previous);
  }
  store.remove_artifacts(plan.run.id, kinds);  // re-checks the status under the write lock
  std::string failed;
  for (const auto& file : files) {
    std::error_code ec;
    fs::remove(file, ec);
    if (ec) failed += (failed.empty() ? "could not remove " : ", ") + file + ": " + ec.message();
  }
  return failed;
}

}  // namespace fathom::experiments
