#include "cli/prune_model_only.h"

#include <filesystem>

#include "core/train/checkpoint.h"
#include "core/train/model_only_checkpoint.h"
#include "db/artifact_files.h"

namespace fathom::cli {
namespace fs = std::filesystem;

ModelOnlyResult keep_models_only(db::Store& store, const experiments::PrunePlan& plan, bool apply) {
  ModelOnlyResult r;
  if (!plan.skipped.empty()) return r;
  if (!apply) {  // the plan's reading of the configs and names, no file opened
    r.files = plan.to_slim.size();
    r.before = plan.to_slim_bytes;
    return r;
  }
  for (const auto& k : plan.kept) {
    if (!fs::exists(k.path) || !checkpoint_has_optimizer_state(k.path)) continue;
    const std::string slim = experiments::model_only_file_name(k, plan.run.lease);
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
    r.before += db::file_bytes(k.path).value_or(0);
    r.released += db::bytes_freed_by_removing({k.path});
    r.after += db::file_bytes(slim).value_or(0);
    std::error_code ec;
    fs::remove(k.path, ec);  // after the row: a failure leaves a stray file, never a lost one
  }
  return r;
}

}  // namespace fathom::cli
