#include "cli/prune_model_only.h"

#include <filesystem>

#include "core/train/checkpoint.h"
#include "core/train/model_only_checkpoint.h"
#include "db/run_json.h"

namespace fathom::cli {
namespace fs = std::filesystem;
namespace {

// train.keep_checkpoint_optimizer as the run was configured (true when the key is absent: runs
// from before it kept the optimizer state).
bool kept_with_optimizer(const db::RunRecord& run) {
  return db::config_value(run.config_json, "train.keep_checkpoint_optimizer") != "false";
}

// A name no holder of the run writes: <kind>.model.g<lease>.pt beside the old file.
std::string model_only_name(const db::KeptCheckpoint& k, int64_t lease) {
  return (fs::path(k.path).parent_path() /
          (db::kept_checkpoint_kind(k.update) + ".model.g" + std::to_string(lease) + ".pt"))
      .string();
}

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

}  // namespace

ModelOnlyResult keep_models_only(db::Store& store, const experiments::PrunePlan& plan, bool apply) {
  ModelOnlyResult r;
  if (!plan.skipped.empty()) return r;
  if (!apply) {
    if (!kept_with_optimizer(plan.run)) return r;
    for (const auto& k : plan.kept)
      if (fs::exists(k.path) && k.path.find(".model.g") == std::string::npos) {  // not yet done
        ++r.files;
        r.before += size_of(k.path);
      }
    return r;
  }
  for (const auto& k : plan.kept) {
    if (!fs::exists(k.path) || !checkpoint_has_optimizer_state(k.path)) continue;
    const std::string slim = model_only_name(k, plan.run.lease);
    try {
      save_model_only(k.path, slim);
      store.replace_artifacts(plan.run.id, {{db::kept_checkpoint_kind(k.update), slim, k.update}});
    } catch (const std::exception& e) {
      std::error_code ec;
      if (slim != k.path) fs::remove(slim, ec);  // never recorded: nobody reads it
      r.warning = "update " + std::to_string(k.update) + ": " + e.what();
      return r;
    }
    ++r.files;
    r.before += size_of(k.path);
    r.after += size_of(slim);
    std::error_code ec;
    fs::remove(k.path, ec);  // after the row: a failure leaves a stray file, never a lost one
  }
  return r;
}

}  // namespace fathom::cli
