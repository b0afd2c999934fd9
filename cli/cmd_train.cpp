// `fathom train CONFIG.yaml [--set key=value ...] [--device ...]` and
// `fathom train --resume RUN`, `fathom train --fork RUN --from STEP` (a new run from a kept
// checkpoint, core/train/fork.h) and `fathom train --reproduce RUN` (its config again, the
// curves compared; cli/reproduction.h): one training run, recorded in the store as its holder
// (db/lease.h). Ctrl+C, SIGTERM or SIGHUP stops it at the next update with a checkpoint (or
// between the steps of loading and evaluating): the run is marked cancelled with the command
// that continues it, and the exit status is 128 + the signal. A run cancelled or taken by
// another process meanwhile stops it without another write (exit status 3).
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "base/config/config_diff.h"
#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/process.h"
#include "base/util/strings.h"
#include "base/util/version.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/rank_launch.h"
#include "cli/reproduction.h"
#include "cli/settle_outcome.h"
#include "cli/stop_signals.h"
#include "core/model/registry.h"
#include "core/train/device.h"
#include "core/train/error_text.h"
#include "core/train/fork.h"
#include "core/train/memory_check.h"
#include "core/train/precision.h"
#include "core/train/reduce_backend.h"
#include "core/train/trainer.h"
#include "db/early_stop_tag.h"
#include "db/fork_tags.h"
#include "db/heartbeat.h"
#include "db/run_paths.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/launcher.h"
#include "experiments/notify.h"
#include "experiments/run_control.h"
#include "experiments/worker_exit.h"

namespace fathom::cli {
namespace {

struct TrainArgs {
  std::string config_path;
  std::vector<std::string> overrides;
  std::string device;
  std::string resume;
  std::string fork;        // --fork RUN
  int64_t fork_from = -1;  // --from STEP
  std::string reproduce;   // --reproduce RUN
  double tolerance = 0;    // --tolerance, for --reproduce's comparison
  bool no_progress = false;
  int nproc = -1;           // --nproc N: train.processes (-1: as the config says)
  int rendezvous_port = 0;  // --rendezvous-port P (0: any free port)
  double heartbeat_interval = db::HeartbeatThread::kDefaultInterval;  // --heartbeat-interval
  // --heartbeat-timeout, with --resume: how long a running run's worker must have been silent
  // to count as lost (and be put down) rather than live.
  double heartbeat_timeout = experiments::kDefaultHeartbeatTimeout;
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
// a live worker is someone else's. Returns why a running run's worker is lost (its heartbeat
// older than `heartbeat_timeout`, or its process gone): the resume takes the run over.
std::optional<std::string> refuse_pointless_resume(const db::Store& store, const db::RunRecord& run,
                                                   const RunConfig& config,
                                                   double heartbeat_timeout) {
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
  if (run.status != db::status::kRunning) return std::nullopt;
  // Never judged on fewer heartbeats than its worker said it beats at: a live run put down.
  const double interval = experiments::recorded_heartbeat_interval(
      run, store.tags(run.id), db::HeartbeatThread::kDefaultInterval);
  check_heartbeat_timeout("fathom train", heartbeat_timeout, interval,
                          "run " + id + "'s worker recorded so");
  auto lost = experiments::lost_worker(store, run, db::unix_now(), heartbeat_timeout);
  if (!lost)
    throw InputError(store.path(), 0, "--resume",
                     "run " + id + " is running on " + run.host +
                         " (its heartbeat is recent); "
                         "`fathom cancel " +
                         id + "` first");
  return lost;
}

// A run train.patience ended has had exactly that many validations without a new best: resumed
// with the same patience (or a smaller one) it would stop again at once.
void refuse_resume_into_early_stop(const db::Store& store, const db::RunRecord& run,
                                   const RunConfig& stored, const RunConfig& config) {
  if (run.status != db::status::kFinished) return;
  const auto tags = store.tags(run.id);
  if (!db::ended_by_early_stop(tags)) return;
  const int patience = config.train.patience;
  if (patience == 0 || patience > stored.train.patience) return;
  throw InputError(store.path(), 0, "--resume",
                   "run " + std::to_string(run.id) + " stopped early (" +
                       tags.at(db::kEarlyStopTag) + "): resumed with train.patience " +
                       std::to_string(patience) +
                       " it stops again at once; --set train.patience=0 trains on to "
                       "train.max_updates, a patience above " +
                       std::to_string(stored.train.patience) + " waits that long");
}

// A resume never ends a run before the update it reached: train.max_updates below it restarted
// a run without a checkpoint from 0, deleting its later curve rows, or recorded a run trained
// past what its config says (issue 57 item 6). Lowering it to no less than the update reached
// (stopping a long run sooner) is a resume like any other.
void refuse_end_before_reached(const db::Store& store, const db::RunRecord& run,
                               const RunConfig& stored, const RunConfig& now) {
  if (now.train.max_updates >= stored.train.max_updates || now.train.max_updates >= run.updates)
    return;
  throw InputError(store.path(), 0, "--set",
                   "train.max_updates=" + std::to_string(now.train.max_updates) +
                       " is below update " + std::to_string(run.updates) + ", which run " +
                       std::to_string(run.id) +
                       " reached: a resume never deletes what was trained; give " +
                       std::to_string(run.updates) + " or more (nothing was changed)");
}

// How a run runs, not what it computes: the ranks a run trains on (train.processes) change how,
// not what (methods.md s9.1). A resume and a reproduction may change these.
const std::set<std::string> kHowKeys = {"train.threads", "train.processes", "train.reduce_backend",
                                        "device"};

// What a resume may change: where the run ends (its last update, its early stop), and how --
// never what its curve so far was trained with, which the stored config must keep describing.
std::set<std::string> resumable_keys() {
  std::set<std::string> keys = kHowKeys;
  keys.insert("train.max_updates");
  keys.insert("train.patience");
  keys.insert("train.patience_min_delta");
  return keys;
}

// What a reproduction may change: its name, and how it runs -- never what it computes.
std::set<std::string> reproducible_keys() {
  std::set<std::string> keys = kHowKeys;
  keys.insert("name");
  return keys;
}

// The keys whose values differ between `stored` and `now` that `allowed` does not hold,
// "a, b" ("" when none).
std::string keys_not_allowed(const std::map<std::string, std::vector<std::string>>& differing,
                             const std::set<std::string>& allowed) {
  std::vector<std::string> refused;
  for (const auto& [key, values] : differing)
    if (!allowed.count(key)) refused.push_back(key);
  return join(refused, ", ");
}

// A resume under changed settings: refused unless only resumable_keys() change; returns those
// changes ("train.max_updates" -> "300 -> 600") to record with the run.
std::map<std::string, std::string> resume_changes(const RunConfig& stored, const RunConfig& now) {
  const auto differing = differing_keys({config_to_json(stored), config_to_json(now)});
  std::map<std::string, std::string> changes;
  for (const auto& [key, values] : differing) changes[key] = values[0] + " -> " + values[1];
  const auto allowed = resumable_keys();
  if (const std::string refused = keys_not_allowed(differing, allowed); !refused.empty())
    throw InputError("fathom train", 0, "--set",
                     "--resume keeps the config the run was trained with; changing " + refused +
                         " would give one curve two settings while the stored config names "
                         "one. A resume may change only " +
                         join({allowed.begin(), allowed.end()}, ", ") +
                         "; for other values train a new run (fathom train CONFIG --set ...)");
  return changes;
}

// A fork's changes, refused (before its run is made) where they would not continue the parent.
void refuse_unforkable_changes(const db::RunRecord& parent, int64_t step, const RunConfig& stored,
                               const RunConfig& now) {
  const std::vector<std::string> refused = unforkable_changes(stored, now);
  if (!refused.empty())
    throw InputError("fathom train", 0, "--set",
                     "a fork continues run " + std::to_string(parent.id) +
                         "'s model, optimizer state and place in its data from update " +
                         std::to_string(step) + "; changing " + join(refused, ", ") +
                         " would not continue them. A fork may change " + kForkableKeysText +
                         "; for other values train a new run (fathom train CONFIG --set ...)");
}

// A reproduction trains the stored config: only its name and how it runs may change.
void refuse_changed_reproduction(const RunConfig& stored, const RunConfig& now) {
  const auto allowed = reproducible_keys();
  const std::string refused =
      keys_not_allowed(differing_keys({config_to_json(stored), config_to_json(now)}), allowed);
  if (!refused.empty())
    throw InputError("fathom train", 0, "--set",
                     "--reproduce trains the run's stored config; changing " + refused +
                         " would compare other settings' curves with it. It may change only " +
                         join({allowed.begin(), allowed.end()}, ", "));
}

// `fathom [--db ...] [--artifacts ...] REST` as the user can run it again: the store and
// artifacts this command used when they were given on its command line (a URL shows *** for
// its password).
std::string command_line(const GlobalOptions& global, const db::Store& store,
                         const std::string& rest) {
  auto quoted = [](const std::string& s) {
    return s.find_first_of(" \t'\"$") == std::string::npos ? s : "'" + s + "'";
  };
  std::string line = "fathom";
  if (!global.db.empty()) line += " --db " + quoted(store.path());
  if (!global.artifacts.empty()) line += " --artifacts " + quoted(global.artifacts);
  return line + " " + rest;
}

// The holder's records of a `fathom train` process: where it runs (so `fathom cancel`
// reaches it and a dead process is known at once, experiments/run_control.h) and a resume's
// changed settings.
void record_holder(db::Store& store, const db::Lease& lease, const RunConfig& config,
                   const std::map<std::string, std::string>& changes, int64_t updates,
                   double heartbeat_s) {
  experiments::record_worker_tags(
      store, lease,
      experiments::holder_tags(experiments::default_launcher(), getpid(), "", heartbeat_s));
  if (changes.empty()) return;
  std::string text;
  for (const auto& [key, change] : changes)
    text += (text.empty() ? "" : "; ") + key + ": " + change;
  store.set_tag(lease, "config.changed_at." + std::to_string(updates), text);
  store.set_config(lease, config_to_yaml(config), config_to_json(config).dump());
}

// Where a training run starts: a fork's parent, a resumed run, or a config file. A new run
// opens (and so creates) the store only after its config passed every check: a typo must leave
// nothing behind, not even an empty store. --resume and --fork need the store first.
struct TrainStart {
  RunConfig config;
  std::optional<db::Store> store;
  std::optional<db::RunRecord> resumed, parent, reproduced;
};

TrainStart load_start(const TrainArgs& args, const std::string& db_path) {
  TrainStart start;
  if (!args.reproduce.empty()) {
    if (!args.resume.empty() || !args.fork.empty() || !args.config_path.empty())
      throw InputError("fathom train", 0, "--reproduce",
                       "a reproduction takes the run's stored config: give no CONFIG, --resume "
                       "or --fork");
    start.store.emplace(db::Store::open(db_path));
    start.reproduced = start.store->find_run(args.reproduce);
    if (!start.reproduced)
      throw InputError(start.store->path(), 0, "--reproduce",
                       "no run '" + args.reproduce + "' in the store");
    start.config = reproduction_config(*start.store, *start.reproduced);
  } else if (!args.fork.empty()) {
    if (!args.resume.empty() || !args.config_path.empty())
      throw InputError("fathom train", 0, "--fork",
                       "a fork takes its parent's config: give no CONFIG and no --resume");
    if (args.fork_from < 0)
      throw InputError("fathom train", 0, "--from", "--fork needs --from STEP (an update)");
    start.store.emplace(db::Store::open(db_path));
    start.parent = start.store->find_run(args.fork);
    if (!start.parent)
      throw InputError(start.store->path(), 0, "--fork", "no run '" + args.fork + "' in the store");
    start.config = load_config_string(start.parent->config_yaml,
                                      "run " + std::to_string(start.parent->id) + " config", "");
    start.config.name = start.parent->name + " fork@" + std::to_string(args.fork_from);
  } else if (!args.resume.empty()) {
    start.store.emplace(db::Store::open(db_path));
    start.resumed = start.store->find_run(args.resume);
    if (!start.resumed)
      throw InputError(start.store->path(), 0, "--resume",
                       "no run '" + args.resume + "' in the store");
    start.config = load_config_string(start.resumed->config_yaml,
                                      "run " + std::to_string(start.resumed->id) + " config", "");
    // A reproduction resumed (after a stop) is compared with its original again at the end.
    const auto tags = start.store->tags(start.resumed->id);
    if (const auto original = tags.find("reproduces"); original != tags.end())
      start.reproduced = start.store->find_run(original->second);
  } else {
    if (args.config_path.empty())
      throw InputError("fathom train", 0, "CONFIG", "give a config file or --resume RUN");
    start.config = load_config_file(args.config_path);
  }
  return start;
}

// The run to train, once every check passed: the fork's new run, the resumed run, or a new one.
int64_t run_to_train(TrainStart& start, const TrainArgs& args, const db::StorePaths& paths) {
  db::Store& store = *start.store;
  const RunConfig& config = start.config;
  if (start.parent) {
    const db::RunRecord& parent = *start.parent;
    const int64_t fork = create_fork(
        store, parent, args.fork_from, config, paths.run_dir(parent.id),
        [&](int64_t id) { return paths.run_dir(id); }, git_revision());
    std::string settings;
    for (const auto& o : args.overrides) settings += (settings.empty() ? "" : "; ") + o;
    if (!settings.empty()) store.set_tag(fork, db::kForkSettingsTag, settings);
    std::cerr << "run " << fork << " forks run " << parent.id << " at update " << args.fork_from
              << "\n";
    start.resumed = store.find_run(std::to_string(fork));
  }
  if (start.resumed) return start.resumed->id;
  db::NewRun run;
  run.name = config.name;
  run.config_json = config_to_json(config).dump();
  run.config_yaml = config_to_yaml(config);
  run.git_rev = git_revision();
  const int64_t id = store.create_run(run);
  if (start.reproduced) record_reproduction(store, id, *start.reproduced);
  return id;
}

// The alerts of a run trained by `fathom train` (its config's notify keys; experiments/notify.h):
// its end -- finished, diverged, failed --, once, after training, each command at most its
// notify.timeout_s. A store error here only costs the alert.
void send_alerts(db::Store& store, int64_t run_id) {
  try {
    const auto record = store.find_run(std::to_string(run_id));
    if (!record) return;
    experiments::Notifier notifier(store, record->sweep);
    notifier.know(*record);
    notifier.observe({*record});
    notifier.wait();
  } catch (const std::exception& e) {
    std::cerr << "notify: " << e.what() << "\n";
  }
}

// Trains the run. A failure after this process took the run is recorded with it
// (settle_outcome); `resume` is the command that continues it.
TrainOutcome train_settling_failure(const RunConfig& config, db::Store& store,
                                    const TrainOptions& options,
                                    const std::optional<db::Lease>& held,
                                    const GlobalOptions& global, const std::string& resume) {
  const int64_t run_id = options.run_id;
  try {
    return train_run(config, store, options);
  } catch (const UnreadableResumePoint&) {
    throw;  // nothing was trained or recorded: the run stays as it was
  } catch (const db::LeaseLost& e) {
    // Cancelled (`fathom cancel`) or taken by another process meanwhile: nothing more is ours.
    std::cerr << "error: " << e.what() << "\n";
    throw CommandExit{experiments::kWorkerFenced};
  } catch (const std::exception& e) {
    if (!held) throw;  // it never became this process's run: left as it was
    const Settlement settled = settle_outcome(store, *held, e);
    if (settled.lease_lost) {
      std::cerr << "note: " << settled.record_error << "\n";
    } else if (!settled.record_error.empty()) {
      // The store itself failed (a full disk under it, a lost server): the run stays
      // `running` until its heartbeat goes stale. Say how to continue; the checkpoint and
      // every row written so far are intact.
      std::cerr << "error: " << settled.why << "\n"
                << "run " << run_id << " could not be marked failed either ("
                << settled.record_error << "); once the store is writable again, continue it with: "
                << command_line(global, store, "cancel " + std::to_string(run_id)) << " && "
                << resume << "\n";
      throw CommandExit{1};
    }
    send_alerts(store, run_id);
    throw;  // main() names it: exit status 2 for bad input, 1 otherwise
  }
}

// A run stopped by a signal: recorded as cancelled with the command that continues it (when
// this process held it); the exit status is 128 + the signal.
[[noreturn]] void exit_stopped(db::Store& store, int64_t run_id, const TrainOutcome& outcome,
                               const std::optional<db::Lease>& held, const std::string& resume) {
  if (held) {
    const Settlement settled = settle_outcome(store, *held, outcome, {false, resume});
    if (settled.lease_lost) std::cerr << "note: " << settled.record_error << "\n";
    std::cerr << "run " << run_id << " " << settled.why << "; continue it with: " << resume << "\n";
  } else {
    std::cerr << "run " << run_id << " " << stopped_why(outcome, {false, resume})
              << ", before it was taken: it is as it was\n";
  }
  throw CommandExit{128 + stop_signal()};
}

void run_train(TrainArgs args, const GlobalOptions& global) {
  take_config_from_overrides(args.config_path, args.overrides);
  const std::string db_path = resolve_db_path(global);
  TrainStart start = load_start(args, db_path);
  RunConfig& config = start.config;
  const RunConfig stored = config;
  apply_overrides(config, args.overrides);
  if (!args.device.empty()) config.device = args.device;
  if (args.nproc == 0 || args.nproc < -1)
    throw InputError("fathom train", 0, "--nproc",
                     "must be at least 1 process, got " + std::to_string(args.nproc));
  if (args.nproc > 0) apply_overrides(config, {"train.processes=" + std::to_string(args.nproc)});
  std::map<std::string, std::string> changes;
  std::optional<std::string> lost_worker;  // why a resumed running run's worker is lost
  if (start.reproduced && !start.resumed) refuse_changed_reproduction(stored, config);
  if (start.parent) refuse_unforkable_changes(*start.parent, args.fork_from, stored, config);
  if (start.resumed) {
    changes = resume_changes(stored, config);
    refuse_end_before_reached(*start.store, *start.resumed, stored, config);
    lost_worker =
        refuse_pointless_resume(*start.store, *start.resumed, config, args.heartbeat_timeout);
    refuse_resume_into_early_stop(*start.store, *start.resumed, stored, config);
  }
  // Every check runs before any work: a bad config (or a device this machine lacks) never
  // creates a run.
  check_config(config);
  check_model_methods(config);
  check_model_fits(config);
  plan_precision(config, resolve_device(config.device));
  rank_device(resolve_device(config.device), 0, config.train.processes);  // enough GPUs?
  resolve_reduce_backend(config.train, resolve_device(config.device));    // NCCL where asked?

  const db::StorePaths paths = resolve_store_paths(global);  // before a run is created
  // The other ranks start (and a port in use is refused) before a run is created.
  std::unique_ptr<RankLaunch> ranks;
  if (needs_rank_group(config.train))
    ranks = RankLaunch::local(config, paths.cache_root, args.rendezvous_port, "--rendezvous-port");
  if (!start.store) start.store.emplace(db::Store::open(db_path));
  db::Store& store = *start.store;
  // A lost worker on this machine is put down before its run is taken, as a sweep's resume
  // does: a frozen process would keep its memory, its device and any store lock it holds.
  if (lost_worker)
    std::cerr << "run " << start.resumed->id << ": its worker is lost ("
              << experiments::put_down_lost_worker(store, *start.resumed, *lost_worker)
              << "); taking it over\n";
  const int64_t run_id = run_to_train(start, args, paths);
  TrainOptions options;
  options.run_id = run_id;
  options.artifacts_dir = paths.run_dir(run_id);
  options.cache_dir = paths.cache_root;
  options.resume = start.resumed.has_value();
  options.progress = !args.no_progress;
  options.heartbeat_s = args.heartbeat_interval;
  options.ranks = ranks ? &ranks->group() : nullptr;
  // Ctrl+C / SIGTERM / SIGHUP: stop at the next update with a checkpoint (or between the
  // steps of loading and evaluating), never leave a stale "running".
  install_stop_signals();
  options.stop_requested = &stop_requested();
  std::optional<db::Lease> held;
  const int64_t updates_before = start.resumed ? start.resumed->updates : 0;
  options.on_hold = [&](const db::Lease& lease) {
    held = lease;
    record_holder(store, lease, config, changes, updates_before, args.heartbeat_interval);
  };
  std::cerr << "run " << run_id << " (" << config.name << ") -> " << store.path() << "\n";
  const std::string resume =
      command_line(global, store, "train --resume " + std::to_string(run_id));
  const TrainOutcome outcome = train_settling_failure(config, store, options, held, global, resume);
  const bool stopped = outcome.status == TrainOutcome::kStopped;
  if (!stopped && !(start.reproduced && global.json))  // one JSON document: the reproduction's
    print_outcome(*store.find_run(std::to_string(run_id)), outcome, global.json);
  // A stopped reproduction is compared through the updates it reached before it exits.
  const bool agrees = !start.reproduced || report_reproduction(store, *start.reproduced, run_id,
                                                               args.tolerance, global.json);
  if (stopped) exit_stopped(store, run_id, outcome, held, resume);
  send_alerts(store, run_id);
  if (!agrees) throw CommandExit{kNotReproduced};
}

}  // namespace

void add_train_command(CLI::App& app, GlobalOptions& global) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train one model and record the run in the store");
  cmd->add_option("config", args->config_path, "YAML run config (see docs/config.md)");
  cmd->add_option("--set", args->overrides, "override a config key: --set model.d_model=256")
      ->take_all();
  cmd->add_option("--device", args->device, "auto | cpu | cuda | cuda:N (overrides the config)");
  cmd->add_option("--resume", args->resume,
                  "continue run RUN (id or name) from its last checkpoint, same trajectory");
  cmd->add_option("--fork", args->fork,
                  "start a new run from run RUN's checkpoint at --from, with --set changes "
                  "(core/train/fork.h)");
  cmd->add_option("--from", args->fork_from,
                  "the update to fork at: a kept checkpoint (train.keep_checkpoint_every) or "
                  "a resume point");
  cmd->add_option("--reproduce", args->reproduce,
                  "train run RUN's stored config again as a new run (outside any sweep), then "
                  "compare its curves with RUN's; exit status 5 where they differ "
                  "(cli/reproduction.h)");
  CLI::Option* reproduce = cmd->get_option("--reproduce");
  cmd->add_option("--tolerance", args->tolerance,
                  "with --reproduce: the relative difference up to which curve values count as "
                  "equal (default 0: the same number)")
      ->check(CLI::Range(0.0, 1.0))
      ->needs(reproduce);
  cmd->add_flag("--no-progress", args->no_progress, "no progress bar");
  cmd->add_option("--nproc", args->nproc,
                  "train on N data-parallel processes on this machine (train.processes; each "
                  "a share of every update's batches, Gloo; docs/distributed.md)");
  cmd->add_option("--heartbeat-interval", args->heartbeat_interval,
                  "seconds between the run's heartbeats (default 20)")
      ->check(CLI::Range(db::kMinHeartbeatInterval, 3600.0));
  cmd->add_option("--heartbeat-timeout", args->heartbeat_timeout,
                  "with --resume of a running run: seconds without a heartbeat after which its "
                  "worker counts as lost, is put down where it runs here, and the run is taken "
                  "over (default 180; at least 3 of the intervals its worker recorded)")
      ->needs(cmd->get_option("--resume"));
  cmd->add_option("--rendezvous-port", args->rendezvous_port,
                  "the TCP port on 127.0.0.1 where the processes of --nproc meet (default: any "
                  "free one)");
  cmd->callback([args, &global] { run_train(*args, global); });
}

}  // namespace fathom::cli
