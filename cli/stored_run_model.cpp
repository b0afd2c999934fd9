#include "cli/stored_run_model.h"

#include <filesystem>
#include <map>
#include <vector>

#include "base/util/error.h"
#include "cli/option_checks.h"
#include "core/train/checkpoint_average.h"
#include "core/train/early_stop.h"
#include "core/train/run_files.h"
#include "db/averaged_checkpoints.h"
#include "db/store.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

bool is_step(const std::string& s) {
  return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos &&
         std::stol(s) > 0;
}

// The updates train.keep_checkpoint_every kept, in order, as " 40 80 120".
std::string updates_text(const std::vector<KeptCheckpoint>& kept) {
  std::string text;
  for (const auto& k : kept) text += " " + std::to_string(k.update);
  return text;
}

// What --checkpoint can name for a run: best, last, init and the steps kept.
std::string kept_steps_hint(const std::vector<KeptCheckpoint>& kept) {
  const std::string hint = "try last or init";
  if (kept.empty()) return hint + "; kept steps need train.keep_checkpoint_every";
  return hint + "; kept steps:" + updates_text(kept);
}

}  // namespace

bool is_checkpoint_name(const std::string& name) {
  return name == "best" || name == "last" || name == "init" || name == "average" || is_step(name);
}

CLI::Option* add_checkpoint_option(CLI::App& cmd, std::string& checkpoint,
                                   const std::string& help) {
  return cmd.add_option("--checkpoint", checkpoint, help)
      ->transform(CLI::Validator(
          [](std::string& v) {
            if (!is_checkpoint_name(v))
              return std::string("must be best, last, average, init or a positive update");
            if (is_step(v)) v = std::to_string(std::stol(v));  // 0300 names checkpoint_300
            return std::string();
          },
          "best|last|average|init|STEP"));
}

analysis::Subject load_stored_run(db::Store& store, const db::StorePaths& paths,
                                  const std::string& target, const std::string& checkpoint) {
  auto run = store.find_run(target);
  if (!run)
    throw InputError(store.path(), 0, "",
                     "no run '" + target + "' in the store (`fathom runs` lists them)");
  analysis::StoredRun stored;
  stored.id = run->id;
  stored.config_yaml = run->config_yaml;
  stored.checkpoint = checkpoint;
  if (checkpoint != "init") {
    // The store's rows name the run's files (core/train/run_files.h).
    const auto artifacts = store.artifacts(run->id);
    const std::string dir = paths.run_dir(run->id);
    const std::string path = recorded_file(artifacts, dir, "checkpoint_" + checkpoint);
    if (path.empty() || !fs::exists(path))
      throw InputError(path.empty() ? dir : path, 0, "--checkpoint",
                       "run " + std::to_string(run->id) + " has no " + checkpoint +
                           " checkpoint (" + kept_steps_hint(kept_checkpoints(artifacts, dir)) +
                           ")");
    stored.checkpoint_path = path;
  }
  const auto tags = store.tags(run->id);
  if (auto it = tags.find("admin.profile"); it != tags.end())
    stored.admin_profile_json = it->second;
  return analysis::subject_from_run(stored, paths.cache_root);
}

void average_stored_checkpoints(analysis::Subject& run, const db::Store& store,
                                const db::StorePaths& paths, int count, bool by_best) {
  const std::string dir = paths.run_dir(*run.run_id);
  const std::vector<KeptCheckpoint> all = kept_checkpoints(store.artifacts(*run.run_id), dir);
  if (static_cast<int>(all.size()) < count)
    throw InputError(dir, 0, "--average",
                     "run " + std::to_string(*run.run_id) + " kept " + std::to_string(all.size()) +
                         " checkpoints" +
                         (all.empty() ? " (train.keep_checkpoint_every keeps them)"
                                      : " (updates" + updates_text(all) + ")") +
                         ", fewer than " + std::to_string(count));
  const BestMetric metric = best_metric_named(run.config.train.best_metric);
  std::map<int64_t, double> metric_at;  // the validations the best are ranked by
  if (by_best)
    for (const auto& p : store.metric_series(*run.run_id, metric.name)) metric_at[p.step] = p.value;
  const std::vector<KeptCheckpoint> kept =
      db::checkpoints_to_average(all, count, by_best, metric_at, metric.higher_is_better);
  if (static_cast<int>(kept.size()) < count)
    throw InputError(dir, 0, "--average",
                     "run " + std::to_string(*run.run_id) + " has a " + metric.name + " at " +
                         std::to_string(kept.size()) + " of its kept checkpoints (updates" +
                         updates_text(all) + "), fewer than " + std::to_string(count) +
                         " to rank by it (train.valid_every)");
  std::vector<std::string> files;
  for (const auto& k : kept) {
    if (!fs::exists(k.path))
      throw InputError(k.path, 0, "--average", "a kept checkpoint the store names is missing");
    files.push_back(k.path);
  }
  average_checkpoints(files, *run.model);
  run.checkpoint = db::averaged_checkpoints_label(kept, by_best ? metric.name : "");
  run.label = "run " + std::to_string(*run.run_id) + " (" + run.checkpoint + ")";
}

CLI::Option* add_model_choice_options(CLI::App& cmd, ModelChoice& choice,
                                      const std::string& checkpoint_help) {
  CLI::Option* checkpoint = add_checkpoint_option(cmd, choice.checkpoint, checkpoint_help);
  CLI::Option* average =
      cmd.add_option(
             "--average", choice.average,
             "the mean of the last N checkpoints the run kept (train.keep_checkpoint_every), "
             "as eval.average_checkpoints: N would have evaluated")
          ->check(positive_number())
          ->excludes(checkpoint);
  cmd.add_option("--average-by", choice.average_by,
                 "which N --average takes: last (the newest; default) or best (those whose "
                 "update's train.best_metric is best, as eval.average_by: best)")
      ->check(CLI::IsMember({"last", "best"}))
      ->needs(average);
  return average;
}

analysis::Subject load_chosen_model(db::Store& store, const db::StorePaths& paths,
                                    const std::string& target, const ModelChoice& choice) {
  analysis::Subject run =
      load_stored_run(store, paths, target, choice.average ? "last" : choice.checkpoint);
  if (choice.average)
    average_stored_checkpoints(run, store, paths, *choice.average, choice.average_by == "best");
  return run;
}

}  // namespace fathom::cli
