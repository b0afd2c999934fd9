// `fathom sweep SWEEP.yaml [--jobs N] [--resume] [--dry-run] [--launcher NAME]
// [--set KEY=VALUE...] [--name NAME]`: expands
// a sweep file (docs/sweeps.md), checks every run's config exactly as `fathom train` would and
// what the launcher needs, records the runs in the store as queued (tags axis.<key> hold their
// axis values) and has workers train them wherever the chosen launcher starts them: local
// processes, a cluster's queue (experiments/launcher_registry.h, docs/cluster.md). `--resume`
// continues a sweep after anything stopped it, even kill -9 of the scheduler and its workers: ended
// runs are kept, interrupted ones continue from their last checkpoint. `fathom sweep status NAME`,
// `fathom sweep cancel NAME`.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include <torch/cuda.h>
#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "base/util/usable_cores.h"
#include "base/util/version.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/model/registry.h"
#include "core/train/memory_check.h"
#include "db/early_stop_tag.h"
#include "db/heartbeat.h"
#include "db/run_paths.h"
#include "db/run_status.h"
#include "db/store_unreachable.h"
#include "experiments/launcher_registry.h"
#include "experiments/run_control.h"
#include "experiments/scheduler.h"
#include "experiments/sweep_queue.h"
#include "experiments/sweep_spec.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct SweepArgs {
  std::string file;
  bool dry_run = false;
  bool resume = false;
  bool no_progress = false;
  int jobs = 1;
  std::string devices = "auto";        // --devices cuda:0,cuda:1; "auto": every visible GPU; "none"
  std::string name;                    // status / cancel
  std::vector<std::string> overrides;  // --set KEY=VALUE: fixed values for every run
  std::string rename;                  // --name: the sweep under another name
  std::string launcher;  // --launcher; empty: the one whose section the sweep file has
  bool wait = false;     // --wait: follow a cluster launch until it ends
  bool yes = false;      // --yes: queue more than kManyRuns runs
  double heartbeat_timeout = experiments::kDefaultHeartbeatTimeout;
  double heartbeat_interval = db::HeartbeatThread::kDefaultInterval;
  std::vector<std::string> retry;  // --retry: ended statuses a resume takes back
};

// --heartbeat-timeout against the interval this sweep's workers beat at (cli/option_checks.h);
// --retry names ended statuses a resume can continue.
void check_follow_flags(const SweepArgs& args) {
  if (!(args.heartbeat_interval >= db::kMinHeartbeatInterval && args.heartbeat_interval <= 3600))
    throw InputError("fathom sweep", 0, "--heartbeat-interval",
                     format_number(args.heartbeat_interval) + " is not a number of seconds from " +
                         format_number(db::kMinHeartbeatInterval) + " to 3600");
  check_heartbeat_timeout("fathom sweep", args.heartbeat_timeout, args.heartbeat_interval,
                          "--heartbeat-interval");
  for (const auto& status : args.retry) {
    const auto& allowed = experiments::retryable_statuses();
    if (std::find(allowed.begin(), allowed.end(), status) == allowed.end())
      throw InputError("fathom sweep", 0, "--retry",
                       "'" + status + "' is not an ended status a resume continues (" +
                           join(allowed, ", ") + ")");
  }
  if (!args.retry.empty() && !args.resume)
    throw InputError("fathom sweep", 0, "--retry", "--retry goes with --resume");
}

std::string self_binary() { return fs::read_symlink("/proc/self/exe").string(); }

// The devices worker slots map to: "auto" -> cuda:0..n-1 when GPUs are visible, else none.
std::vector<std::string> slot_devices(const std::string& spec) {
  std::vector<std::string> devices;
  if (spec == "none") return devices;
  if (spec == "auto") {
    const int n = static_cast<int>(torch::cuda::device_count());
    for (int i = 0; i < n; ++i) devices.push_back("cuda:" + std::to_string(i));
    return devices;
  }
  for (const std::string& d : split(spec, ',')) {
    if (d != "cpu" && d.rfind("cuda:", 0) != 0)
      throw InputError("--devices", 0, "--devices", "'" + d + "' is not cpu or cuda:N");
    devices.push_back(d);
  }
  return devices;
}

// The sweep's failed runs in the store, whenever they failed, said with how to run them again;
// their number (issue 57 item 9: a resume that kept a failed run exited 0).
int say_failed_runs(const db::Store& store, const std::string& sweep, const std::string& file) {
  int failed = 0;
  for (const auto& r : store.list_run_states(sweep)) failed += r.status == db::status::kFailed;
  if (failed > 0)
    std::printf(
        "sweep %s: %d failed run%s in the store; `fathom show RUN` says why, `fathom sweep %s "
        "--resume --retry failed` runs %s again\n",
        sweep.c_str(), failed, failed == 1 ? "" : "s", file.c_str(), failed == 1 ? "it" : "them");
  return failed;
}

// `--dry-run`: the runs the sweep expands to, as JSON or as text; nothing is queued.
void print_dry_run(const experiments::SweepSpec& spec,
                   const std::vector<experiments::SweepRun>& runs, bool json) {
  if (json) {
    nlohmann::json out = {{"sweep", spec.name},
                          {"runs", nlohmann::json::array()},
                          {"needs_yes", runs.size() > experiments::kManyRuns},
                          {"set", spec.overrides}};
    for (const auto& run : runs) {
      nlohmann::json axes = nlohmann::json::object();
      for (const auto& axis : run.axes) axes[axis.key] = axis.value;
      out["runs"].push_back({{"name", run.name}, {"axes", axes}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (!spec.overrides.empty())
    std::cout << "every run: --set " << join(spec.overrides, " ") << "\n";
  std::cout << experiments::describe_sweep(runs);
  if (runs.size() > experiments::kManyRuns)
    std::cout << "note: " << runs.size() << " runs is more than " << experiments::kManyRuns
              << "; queueing them will ask for --yes\n";
}

// What the launcher is asked to run: the sweep's workers, their store, devices and threads.
experiments::LaunchRequest launch_request(const SweepArgs& args, const std::string& sweep,
                                          const experiments::LauncherEntry& chosen,
                                          const db::Store& store, const std::string& db_path,
                                          const db::StorePaths& paths) {
  const int cores = usable_cores();  // the affinity mask's, as a run's "all cores"
  experiments::LaunchRequest request;
  request.sweep = sweep;
  request.sweep_file = args.file;
  request.parallel = args.jobs;
  request.fathom_binary = self_binary();
  // Workers get the store through the environment (a URL may hold a password; argv is public).
  request.db_location = store.is_file() ? fs::absolute(store.url().connect).string() : db_path;
  request.artifacts_root = paths.artifacts_root;
  request.threads_per_worker = std::max(1, cores / args.jobs);
  if (chosen.uses_local_devices) request.devices = slot_devices(args.devices);
  request.run_dir = [paths](int64_t id) { return paths.run_dir(id); };
  request.heartbeat_s = args.heartbeat_interval;
  return request;
}

// One line on stderr: how many runs the sweep has, how many are left to run, and where.
void say_queued(const SweepArgs& args, const experiments::SweepSpec& spec, size_t runs,
                const experiments::QueuedSweep& queued, const experiments::LaunchRequest& request,
                const std::string& launcher_name, const db::Store& store) {
  std::string mapping;
  for (const auto& d : request.devices) mapping += (mapping.empty() ? " on " : ",") + d;
  // A resumed extension file (NAME-edge.yaml) shares its sweep's queue: say whose runs go.
  std::string to_run = std::to_string(request.runs) + " to run";
  if (queued.queued_outside_file > 0)
    to_run += ": " + std::to_string(request.runs - queued.queued_outside_file) + " of this file, " +
              std::to_string(queued.queued_outside_file) + " queued by another file of sweep " +
              spec.name;
  std::fprintf(stderr,
               "sweep %s: %zu runs in %s (%d already ended, %d running elsewhere, %s) via %s "
               "launcher with %d worker(s)%s -> %s\n",
               spec.name.c_str(), runs, args.file.c_str(), queued.kept, queued.alive,
               to_run.c_str(), launcher_name.c_str(), args.jobs, mapping.c_str(),
               store.path().c_str());
  for (const std::string& lost : queued.lost)
    std::fprintf(stderr, "sweep %s: lost worker of %s\n", spec.name.c_str(), lost.c_str());
}

// Follows the launched sweep until no run is left to it, then says how it went; exit status 1
// unless every run ended as a result.
void follow_to_end(db::Store& store, experiments::Launcher& launcher, const SweepArgs& args,
                   const std::string& sweep) {
  experiments::FollowOptions follow;
  follow.sweep = sweep;
  follow.progress = !args.no_progress;
  follow.heartbeat_timeout_s = args.heartbeat_timeout;
  const experiments::SweepCounts counts = experiments::follow_sweep(store, launcher, follow);
  // With a second scheduler of the sweep at once, each counts the runs its workers ran.
  const std::string elsewhere = counts.elsewhere > 0
                                    ? "; " + std::to_string(counts.elsewhere) +
                                          " more ended under another scheduler's workers"
                                    : "";
  std::printf(
      "sweep %s: %d finished, %d diverged, %d failed, %d crashed, %d cancelled "
      "(this session)%s\n",
      sweep.c_str(), counts.finished, counts.diverged, counts.failed, counts.crashed,
      counts.cancelled, elsewhere.c_str());
  if (counts.left_queued > 0)
    std::printf(
        "sweep %s: %d runs still queued with no worker left to take them; "
        "`fathom sweep %s --resume` launches more\n",
        sweep.c_str(), counts.left_queued, args.file.c_str());
  // Diverged runs are results; a run that failed, crashed or is left queued is not done --
  // this session's, or one an earlier launch left failed (a resume keeps those).
  const int failed_in_store = say_failed_runs(store, sweep, args.file);
  if (counts.failed + counts.crashed + counts.left_queued + failed_in_store > 0)
    throw CommandExit{1};
}

void run_sweep(const SweepArgs& args, const GlobalOptions& global) {
  experiments::SweepSpec spec = experiments::load_sweep_file(args.file);
  if (!args.rename.empty()) experiments::rename_sweep(spec, args.rename);
  experiments::apply_sweep_overrides(spec, args.overrides);
  // Counted before anything is expanded: a sweep that needs --yes is refused at once, not after
  // expanding and checking every run (no exclude rule can make it smaller then).
  check_follow_flags(args);  // --dry-run checks every flag too
  if (!args.dry_run && spec.exclude.empty())
    experiments::check_run_count(spec, experiments::count_combinations(spec), args.yes);
  const auto runs = experiments::expand_sweep(spec, [](const RunConfig& config) {
    check_model_methods(config);
    check_model_fits(config);
  });
  if (args.dry_run) {
    print_dry_run(spec, runs, global.json);
    return;
  }
  experiments::check_run_count(spec, runs.size(), args.yes);
  if (args.jobs < 1) throw InputError("--jobs", 0, "--jobs", "must be at least 1");
  const experiments::LauncherEntry& chosen = experiments::chosen_launcher(spec, args.launcher);
  const std::string& launcher_name = chosen.name;
  auto launcher = chosen.make(spec);
  // A worker frozen holding a SQLite store's write lock keeps every writer waiting until this
  // scheduler judges it lost and puts it down (experiments/write_lock_watch.h): this process
  // and its workers wait on the store that long, and a round and a kill more, before giving up
  // (unless the user set $FATHOM_DB_RETRY_SECONDS).
  db::default_store_wait_at_least(args.heartbeat_timeout + 60);
  const std::string db_path = resolve_db_path(global);
  const db::StorePaths paths = resolve_store_paths(global);
  auto store = db::Store::open(db_path);

  experiments::LaunchRequest request =
      launch_request(args, spec.name, chosen, store, db_path, paths);
  // Every refusal (no sbatch, an unknown partition, GPU runs on a CPU partition) comes before
  // anything is queued.
  std::vector<RunConfig> configs;
  for (const auto& run : runs) configs.push_back(run.config);
  launcher->check(request, configs);

  // Records the runs (a sweep already in the store needs --resume) and requeues interrupted ones.
  const experiments::QueuedSweep queued =
      experiments::queue_sweep(store, spec, runs, args.resume, args.heartbeat_timeout, args.retry);
  request.runs = queued.queued;
  say_queued(args, spec, runs.size(), queued, request, launcher_name, store);
  if (request.runs == 0 && queued.alive == 0) {
    std::printf("sweep %s: nothing left to run\n", spec.name.c_str());
    if (say_failed_runs(store, spec.name, args.file) > 0) throw CommandExit{1};
    return;
  }
  // Also while only other workers are left to follow: a run whose claimer died before starting
  // it goes back to the queue (follow_sweep), and a launcher with open slots runs it.
  if (request.runs > 0 || queued.alive > 0) {
    try {
      std::fprintf(stderr, "sweep %s: %s\n", spec.name.c_str(),
                   launcher->launch(store, request).c_str());
    } catch (...) {
      // A refused submission leaves nothing queued half-way: the runs this call created go.
      for (int64_t id : queued.created) store.delete_run(id);
      throw;
    }
  }
  if (!chosen.follows_until_done && !args.wait) {
    std::printf(
        "sweep %s: submitted; follow it with `fathom sweep status %s`, stop it with "
        "`fathom sweep cancel %s` (or add --wait)\n",
        spec.name.c_str(), spec.name.c_str(), spec.name.c_str());
    return;
  }
  follow_to_end(store, *launcher, args, spec.name);
}

// One run of `fathom sweep status --json`; `early_stop_tags`: its tags where train.patience ended
// it.
nlohmann::json status_json_row(const db::RunRecord& r, const std::string& job,
                               const std::string& state,
                               const experiments::WorkerTags* early_stop_tags, double now) {
  return {{"id", r.id},
          {"name", r.name},
          {"status", r.status},
          {"diverged_step", r.diverged_step ? nlohmann::json(*r.diverged_step) : nullptr},
          {"updates", r.updates},
          {"host", r.host},
          {"job", job},
          {"worker", state == "-" ? "" : state},
          {"heartbeat_age_s", r.status == db::status::kRunning && r.heartbeat_at > 0
                                  ? nlohmann::json(now - r.heartbeat_at)
                                  : nullptr},
          {"early_stop",
           early_stop_tags ? nlohmann::json(early_stop_tags->at(db::kEarlyStopTag)) : nullptr}};
}

void sweep_status(const GlobalOptions& global, const std::string& name) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path, db::OpenMode::ReadOnly);
  const auto runs = store.list_runs(name);
  if (runs.empty()) throw InputError(store.path(), 0, "sweep", "no sweep named '" + name + "'");
  std::vector<experiments::WorkerTags> tags;
  for (const auto& r : runs) tags.push_back(store.tags(r.id));
  const auto states = experiments::worker_states(tags);
  const double now = db::unix_now();
  std::map<std::string, int> by_status;
  int stopped_early = 0;
  nlohmann::json json_runs = nlohmann::json::array();
  if (!global.json)
    std::printf("%5s  %-21s %7s  %-12s %-12s %-22s %9s  %s\n", "id", "status", "updates", "host",
                "job", "worker", "heartbeat", "name");
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    ++by_status[r.status];
    std::string status = r.status;
    if (r.diverged_step) status += "@" + std::to_string(*r.diverged_step);
    const bool early = r.status == db::status::kFinished && db::ended_by_early_stop(tags[i]);
    if (early) {
      status += " (early stop)";
      ++stopped_early;
    }
    const std::string job = experiments::worker_job(tags[i]);
    std::string state = experiments::worker_state(r, tags[i], states);
    if (state.empty()) state = "-";
    const std::string beat =
        r.status == db::status::kRunning && r.heartbeat_at > 0
            ? std::to_string(static_cast<long long>(now - r.heartbeat_at)) + " s ago"
            : "-";
    if (global.json) {
      json_runs.push_back(status_json_row(r, job, state, early ? &tags[i] : nullptr, now));
      continue;
    }
    std::printf("%5lld  %-21s %7lld  %-12s %-12s %-22s %9s  %s\n", static_cast<long long>(r.id),
                status.c_str(), static_cast<long long>(r.updates),
                r.host.empty() ? "-" : r.host.c_str(), job.empty() ? "-" : job.c_str(),
                state.c_str(), beat.c_str(), r.name.c_str());
  }
  // Every worker silent at once: a process frozen inside a write (experiments/write_lock_watch.h).
  const auto stalled_by = experiments::stalled_write_lock_holder(store);
  const std::string holder =
      stalled_by ? experiments::describe_lock_holder(store, *stalled_by, db::unix_now()) : "";
  if (global.json) {
    std::cout << nlohmann::json{{"sweep", name},
                                {"runs", json_runs},
                                {"counts", by_status},
                                {"store_locked_by", stalled_by ? nlohmann::json(*stalled_by)
                                                               : nlohmann::json(nullptr)},
                                {"store_lock_holder",
                                 stalled_by ? nlohmann::json(holder) : nlohmann::json(nullptr)}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("%zu runs:", runs.size());
  for (const auto& [status, n] : by_status) {
    std::printf(" %d %s", n, status.c_str());
    if (status == db::status::kFinished && stopped_early > 0)
      std::printf(" (%d stopped early by train.patience)", stopped_early);
  }
  std::printf("\n");
  if (stalled_by)
    std::printf(
        "the run store's write lock is held by %s, still a second later: every writer waits on "
        "it (a process stopped or hung inside a write?)\n",
        holder.c_str());
}

// Queued runs become cancelled; running ones are cancelled and their workers stopped wherever
// they run (experiments/run_control.h); workers not started yet (a job
// array's pending tasks) are cancelled too.
void sweep_cancel(const GlobalOptions& global, const std::string& name) {
  const std::string db_path = resolve_db_path(global);
  auto store = db::Store::open(db_path);
  if (store.list_runs(name).empty())
    throw InputError(store.path(), 0, "sweep", "no sweep named '" + name + "'");
  const experiments::CancelReport report =
      experiments::cancel_sweep(store, name, "cancelled by `fathom sweep cancel`");
  for (const auto& problem : report.problems)
    std::fprintf(stderr, "warning: %s\n", problem.c_str());
  if (global.json)
    std::cout << nlohmann::json{{"sweep", name},
                                {"cancelled", report.cancelled},
                                {"warnings", report.problems}}
                     .dump(2)
              << "\n";
  else
    std::printf("sweep %s: %d runs cancelled\n", name.c_str(), report.cancelled);
}

}  // namespace

void add_sweep_command(CLI::App& app, GlobalOptions& global) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd =
      app.add_subcommand("sweep", "Run a sweep file in worker processes (docs/sweeps.md)");
  cmd->add_option("sweep", args->file, "sweep YAML");
  cmd->add_flag("--dry-run", args->dry_run, "check every run's config and print the runs");
  cmd->add_flag("--resume", args->resume, "continue the sweep: keep ended runs, resume the rest");
  cmd->add_option("--jobs", args->jobs, "parallel worker processes (default 1)");
  cmd->add_flag("--no-progress", args->no_progress, "no status lines");
  cmd->add_option("--launcher", args->launcher,
                  "where workers run: " + experiments::describe_launchers() + "; docs/cluster.md");
  cmd->add_flag("--wait", args->wait,
                "with " + join(experiments::launchers_handing_over(), ", ") +
                    ": follow the launch until every run ended");
  cmd->add_flag("--yes", args->yes, "queue a sweep of more than 1000 runs");
  cmd->add_option("--set", args->overrides,
                  "a config value for every run, over the sweep's base and set: "
                  "(--set train.max_updates=100000; not an axis key)")
      ->take_all();
  cmd->add_option("--name", args->rename,
                  "the sweep's name (prefix of its run names) instead of the file's name:");
  cmd->add_option("--heartbeat-timeout", args->heartbeat_timeout,
                  "seconds without a heartbeat after which a running run's worker counts as lost "
                  "(default 180; at least 3 heartbeat intervals)");
  cmd->add_option("--heartbeat-interval", args->heartbeat_interval,
                  "seconds between a worker's heartbeats (default 20)")
      ->check(CLI::Range(db::kMinHeartbeatInterval, 3600.0));
  cmd->add_option("--retry", args->retry,
                  "with --resume: also continue runs that ended with these statuses "
                  "(cancelled, failed), from their last checkpoint")
      ->delimiter(',');
  cmd->add_option("--devices", args->devices,
                  "devices of the worker slots, e.g. cuda:0,cuda:1 (slot i -> device i mod n); "
                  "auto: every visible GPU (default); none: as the configs say")
      ->default_val("auto");
  CLI::App* status = cmd->add_subcommand("status", "List a sweep's runs and their status");
  status->add_option("name", args->name, "sweep name")->required();
  status->callback([args, &global] { sweep_status(global, args->name); });
  CLI::App* cancel = cmd->add_subcommand("cancel", "Cancel a sweep's queued and running runs");
  cancel->add_option("name", args->name, "sweep name")->required();
  cancel->callback([args, &global] { sweep_cancel(global, args->name); });
  cmd->callback([cmd, args, &global] {
    if (cmd->get_subcommands().empty()) {
      if (args->file.empty()) throw InputError("fathom sweep", 0, "SWEEP", "give a sweep file");
      run_sweep(*args, global);
    }
  });
}

}  // namespace fathom::cli
