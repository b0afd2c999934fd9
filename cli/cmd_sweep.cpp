// `fathom sweep SWEEP.yaml [--jobs N] [--resume] [--dry-run] [--launcher NAME]
// [--set KEY=VALUE...] [--name NAME]`: expands
// a sweep file (docs/sweeps.md), checks every run's config exactly as `fathom train` would and
// what the launcher needs, records the runs in the store as queued (tags axis.<key> hold their
// axis values) and has workers train them wherever the chosen launcher starts them: local
// processes, a cluster's queue (experiments/launcher_registry.h, docs/cluster.md). `--resume`
// continues a sweep after anything stopped it, even kill -9 of the scheduler and its workers: ended
// runs are kept, interrupted ones continue from their last checkpoint. Its options, and
// `fathom sweep status NAME` and `fathom sweep cancel NAME`: cli/cmd_sweep_status.cpp.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <torch/cuda.h>
#include <nlohmann/json.hpp>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/strings.h"
#include "base/util/usable_cores.h"
#include "base/util/version.h"
#include "cli/commands.h"
#include "cli/fork_sweep.h"
#include "cli/option_checks.h"
#include "cli/sweep_command_line.h"
#include "core/model/registry.h"
#include "core/train/memory_check.h"
#include "db/heartbeat.h"
#include "db/run_paths.h"
#include "db/run_removal.h"
#include "db/run_status.h"
#include "db/store_unreachable.h"
#include "experiments/launcher_registry.h"
#include "experiments/run_control.h"
#include "experiments/scheduler.h"
#include "experiments/sweep_fork.h"
#include "experiments/sweep_queue.h"
#include "experiments/sweep_spec.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

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
                   const std::vector<experiments::SweepRun>& runs, bool json,
                   const std::optional<ForkSweep>& fork) {
  if (json) {
    nlohmann::json out = {{"sweep", spec.name},
                          {"runs", nlohmann::json::array()},
                          {"needs_yes", runs.size() > experiments::kManyRuns},
                          {"set", spec.overrides}};
    if (fork) out["fork"] = {{"run", fork->parent.id}, {"from", fork->at.from}};
    for (const auto& run : runs) {
      nlohmann::json axes = nlohmann::json::object();
      for (const auto& axis : run.axes) axes[axis.key] = axis.value;
      out["runs"].push_back({{"name", run.name}, {"axes", axes}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (fork)
    std::cout << "every run: a fork of run " << fork->parent.id << " (" << fork->parent.name
              << ") from its checkpoint at update " << fork->at.from << "\n";
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

// How this call makes its new runs (forks, in a fork sweep) and takes one back whole -- its rows
// and files (a fork's linked checkpoints) -- when the sweep cannot be queued or launched whole.
experiments::SweepRunMaker run_maker(db::Store& store, const db::StorePaths& paths,
                                     const std::optional<ForkSweep>& fork,
                                     const experiments::SweepSpec& spec) {
  experiments::SweepRunMaker maker =
      fork ? fork_maker(store, *fork, spec, paths) : experiments::SweepRunMaker{};
  maker.remove = [&store, paths](int64_t id) { db::delete_run_and_files(store, paths, id); };
  return maker;
}

void run_sweep(const SweepArgs& args, const GlobalOptions& global) {
  std::optional<ForkSweep> fork;
  experiments::SweepSpec spec =
      experiments::load_sweep_file(args.file, [&](const experiments::SweepFork& at) {
        fork.emplace(read_fork_parent(args.file, at, global));
        return fork->parent_config;
      });
  if (!args.rename.empty()) experiments::rename_sweep(spec, args.rename);
  experiments::apply_sweep_overrides(spec, args.overrides);
  // Counted before anything is expanded: a sweep that needs --yes is refused at once, not after
  // expanding and checking every run (no exclude rule can make it smaller then).
  check_follow_flags(args);  // --dry-run checks every flag too
  if (!args.dry_run && spec.exclude.empty())
    experiments::check_run_count(spec, experiments::count_combinations(spec), args.yes);
  const auto runs = experiments::expand_sweep(spec, [&](const RunConfig& config) {
    check_model_methods(config);
    check_model_fits(config);
    if (fork) experiments::check_fork_run(spec, fork->parent_config, config);
  });
  if (fork) check_fork_point_of_sweep(*fork, spec, runs, global);
  if (args.dry_run) {
    print_dry_run(spec, runs, global.json, fork);
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
  const experiments::SweepRunMaker maker = run_maker(store, paths, fork, spec);
  const experiments::QueuedSweep queued = experiments::queue_sweep(
      store, spec, runs, args.resume, args.heartbeat_timeout, args.retry, maker);
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
      for (int64_t id : queued.created) maker.remove(id);
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

}  // namespace

void add_sweep_command(CLI::App& app, GlobalOptions& global) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = add_sweep_command_line(app, args, global);
  cmd->callback([cmd, args, &global] {
    if (cmd->get_subcommands().empty()) {
      if (args->file.empty()) throw InputError("fathom sweep", 0, "SWEEP", "give a sweep file");
      run_sweep(*args, global);
    }
  });
}

}  // namespace fathom::cli
