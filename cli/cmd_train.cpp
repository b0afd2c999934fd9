// `fathom train CONFIG.yaml [--set key=value ...] [--device ...]` and
// `fathom train --resume RUN`: one training run, recorded in the store. Ctrl+C or SIGTERM
// stops it at the next update with a checkpoint: the run is marked cancelled with the command
// that continues it, and the exit status is 128 + the signal.
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/version.h"
#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "core/model/registry.h"
#include "core/train/trainer.h"
#include "db/heartbeat.h"
#include "db/run_paths.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/run_control.h"

namespace fathom::cli {
namespace {

struct TrainArgs {
  std::string config_path;
  std::vector<std::string> overrides;
  std::string device;
  std::string resume;
  bool no_progress = false;
};

void print_outcome(const db::RunRecord& run, const TrainOutcome& outcome, bool json) {
  if (json) {
    nlohmann::json j{{"id", run.id},
                     {"name", run.name},
                     {"status", outcome.status},
                     {"updates", outcome.updates},
                     {"final_metrics", outcome.final_metrics}};
    if (outcome.diverged_step) j["diverged_step"] = *outcome.diverged_step;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << "run " << run.id << " (" << run.name << "): " << outcome.status;
  if (outcome.diverged_step)
    std::cout << " at update " << *outcome.diverged_step << " (" << outcome.reason << ")";
  std::cout << "\n";
  for (const auto& [name, value] : outcome.final_metrics)
    std::cout << "  " << name << " = " << value << "\n";
}

// A finished run with no update left (resuming would only redo its final evaluation) or a
// diverged one (the same trajectory diverges again) has nothing to resume; a running one with
// a live worker is someone else's. A finished run given more updates trains on.
void refuse_pointless_resume(const db::Store& store, const db::RunRecord& run,
                             const RunConfig& config) {
  const std::string id = std::to_string(run.id);
  if (run.status == db::status::kDiverged)
    throw InputError(store.path(), 0, "--resume",
                     "run " + id + " diverged at update " +
                         std::to_string(run.diverged_step.value_or(0)) +
                         ": resuming repeats the same trajectory (`fathom show " + id + "`)");
  if (run.status == db::status::kFinished && config.train.max_updates <= run.updates)
    throw InputError(
        store.path(), 0, "--resume",
        "run " + id + " is finished with all its " + std::to_string(run.updates) +
            " updates: nothing to resume (raise train.max_updates with --set to train it further)");
  if (run.status == db::status::kRunning &&
      !experiments::lost_worker(store, run, db::unix_now(), experiments::kDefaultHeartbeatTimeout))
    throw InputError(store.path(), 0, "--resume",
                     "run " + id + " is running on " + run.host +
                         " (its heartbeat is recent); "
                         "`fathom cancel " +
                         id + "` first");
}

void run_train(TrainArgs args, const GlobalOptions& global) {
  take_config_from_overrides(args.config_path, args.overrides);
  const std::string db_path = resolve_db_path(global);
  RunConfig config;
  // A new run opens (and so creates) the store only after its config passed every check: a
  // typo must leave nothing behind, not even an empty store. --resume needs the store first.
  std::optional<db::Store> store;
  int64_t run_id = 0;
  if (!args.resume.empty()) {
    store.emplace(db::Store::open(db_path));
    auto record = store->find_run(args.resume);
    if (!record)
      throw InputError(store->path(), 0, "--resume", "no run '" + args.resume + "' in the store");
    run_id = record->id;
    config =
        load_config_string(record->config_yaml, "run " + std::to_string(run_id) + " config", "");
  } else {
    if (args.config_path.empty())
      throw InputError("fathom train", 0, "CONFIG", "give a config file or --resume RUN");
    config = load_config_file(args.config_path);
  }
  apply_overrides(config, args.overrides);
  if (!args.device.empty()) config.device = args.device;
  if (run_id != 0)
    refuse_pointless_resume(*store, *store->find_run(std::to_string(run_id)), config);
  // Every check runs before any work: a bad config never creates a run.
  check_config(config);
  check_model_methods(config);

  const db::StorePaths paths = resolve_store_paths(global);  // before a run is created
  if (!store) store.emplace(db::Store::open(db_path));
  if (run_id == 0) {
    db::NewRun run;
    run.name = config.name;
    run.config_json = config_to_json(config).dump();
    run.config_yaml = config_to_yaml(config);
    run.git_rev = git_revision();
    run_id = store->create_run(run);
  }
  TrainOptions options;
  options.run_id = run_id;
  options.artifacts_dir = paths.run_dir(run_id);
  options.cache_dir = paths.cache_root;
  options.resume = !args.resume.empty();
  options.progress = !args.no_progress;
  // Ctrl+C / SIGTERM: stop at the next update with a checkpoint, never leave a stale "running".
  install_stop_signals();
  options.stop_requested = &stop_requested();
  std::cerr << "run " << run_id << " (" << config.name << ") -> " << store->path() << "\n";
  // Liveness for schedulers and the desktop app, also during long evaluations.
  db::HeartbeatThread heartbeat(store->location(), run_id, db::HeartbeatThread::kDefaultInterval);
  TrainOutcome outcome;
  try {
    outcome = train_run(config, *store, options);
  } catch (const UnreadableResumePoint&) {
    throw;  // nothing was trained or recorded: the run stays as it was
  } catch (const std::exception& e) {
    try {
      store->finish_run(run_id, db::status::kFailed, e.what());
    } catch (const std::exception& also) {
      // The store itself failed (a full disk under it, a lost server): the run stays
      // `running` until its heartbeat goes stale. Say how to continue; the checkpoint and
      // every row written so far are intact.
      std::cerr << "error: " << e.what() << "\n"
                << "run " << run_id << " could not be marked failed either (" << also.what()
                << "); once the store is writable again, continue it with: fathom cancel " << run_id
                << " && fathom train --resume " << run_id << "\n";
      throw CommandExit{1};
    }
    throw;
  }
  if (outcome.status == "stopped") {
    const std::string resume = "fathom train --resume " + std::to_string(run_id);
    store->finish_run(run_id, db::status::kCancelled,
                      std::string("interrupted by ") + strsignal(stop_signal()) + " after update " +
                          std::to_string(outcome.updates) +
                          " (checkpoint written); continue with `" + resume + "`");
    std::cerr << "run " << run_id << " stopped after update " << outcome.updates
              << " with a checkpoint; continue it with: " << resume << "\n";
    throw CommandExit{128 + stop_signal()};
  }
  print_outcome(*store->find_run(std::to_string(run_id)), outcome, global.json);
}

}  // namespace

void add_train_command(CLI::App& app, GlobalOptions& global) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "train one model and record the run in the store");
  cmd->add_option("config", args->config_path, "YAML run config (see docs/config.md)");
  cmd->add_option("--set", args->overrides, "override a config key: --set model.d_model=256")
      ->take_all();
  cmd->add_option("--device", args->device, "auto | cpu | cuda | cuda:N (overrides the config)");
  cmd->add_option("--resume", args->resume,
                  "continue run RUN (id or name) from its last checkpoint, same trajectory");
  cmd->add_flag("--no-progress", args->no_progress, "no progress bar");
  cmd->callback([args, &global] { run_train(*args, global); });
}

}  // namespace fathom::cli
