// `fathom worker --sweep NAME` / `fathom worker --run ID --lease N`: the process a launcher
// starts (experiments/launcher.h). It holds one run -- the next queued run of the sweep,
// claimed atomically in the store (a Slurm array task), or a run its launcher already claimed
// for it (the local launcher), under that claim's lease (db/lease.h) -- and trains it, resuming
// from the run's checkpoint when it has one. Every write it makes is fenced by the lease: once
// the run is taken from it (declared lost and requeued, cancelled) it stops and exits 3.
// The store and artifacts root come from $FATHOM_DB / $FATHOM_ARTIFACTS (a URL may hold a
// password; argv is public); nothing about the run's state travels in argv.
//
// SIGUSR2 (Slurm's warning before a time limit or preemption: --signal=B:USR2@90), SIGTERM
// and SIGINT stop it at the next update boundary: it writes a checkpoint, puts the run back
// in the queue and exits 75 -- after SIGUSR2 under Slurm it also asks for its task to be
// requeued -- so a later claim continues the run with no metric row lost or repeated. A run
// cancelled meanwhile stays cancelled. Exit statuses: experiments/worker_exit.h.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/process.h"
#include "cli/commands.h"
#include "cli/rank_launch.h"
#include "cli/settle_outcome.h"
#include "cli/slurm_ranks.h"
#include "cli/stop_signals.h"
#include "core/model/registry.h"
#include "core/train/error_text.h"
#include "core/train/memory_check.h"
#include "core/train/reduce_backend.h"
#include "core/train/trainer.h"
#include "db/heartbeat.h"
#include "db/run_status.h"
#include "db/store.h"
#include "experiments/launcher.h"
#include "experiments/worker_exit.h"
#include "experiments/worker_tags.h"

namespace fathom::cli {
namespace {
namespace fs = std::filesystem;

struct WorkerArgs {
  std::string sweep;
  int64_t run = 0;
  int64_t lease = 0;  // with --run: the lease generation the launcher's claim got
  std::string device;
  int threads = 0;
  bool no_progress = false;
  bool slurm_ranks = false;  // a task of a multi-task Slurm step (cli/slurm_ranks.h)
  double heartbeat_s = db::HeartbeatThread::kDefaultInterval;
};

// What a launcher needs to find, stop and judge this worker later, from any machine.
void record_worker(db::Store& store, const db::Lease& lease, const std::string& log,
                   double heartbeat_s) {
  experiments::WorkerTags tags = experiments::this_worker_tags();
  tags.merge(experiments::holder_tags(tags[experiments::worker_tag::kLauncher], getpid(), log,
                                      heartbeat_s));
  experiments::record_worker_tags(store, lease, tags);
}

// From here on the task's output goes to the run's own log, appended across requeues.
void redirect_output_to(const std::string& log) {
  fs::create_directories(fs::path(log).parent_path());
  std::cout.flush();
  std::cerr.flush();
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;  // keep writing to the launcher's log
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  close(fd);
}

// The run this worker holds: one its launcher claimed for it (--run, --lease), or the next
// queued run of the sweep, claimed here. nullopt: nothing left to claim.
std::optional<db::RunRecord> take_run(db::Store& store, const WorkerArgs& args) {
  if (args.run > 0) {
    auto run = store.find_run(std::to_string(args.run));
    if (!run) throw InputError(store.path(), 0, "--run", "no run " + std::to_string(args.run));
    if (args.lease <= 0)
      throw InputError("fathom worker", 0, "--lease",
                       "--run needs the lease generation of its launcher's claim");
    // Checked by every write below too; said here so a stale start explains itself.
    if (run->status != db::status::kRunning || run->lease != args.lease)
      throw db::LeaseLost(db::Lease{run->id, args.lease}, run->status, run->lease);
    return run;
  }
  if (args.sweep.empty())
    throw InputError("fathom worker", 0, "--sweep", "give --sweep NAME or --run ID --lease N");
  return store.claim_next_run(args.sweep, host_name(), args.device);
}

// An error while training: the run is recorded failed -- or crashed, which `fathom sweep
// --resume` restarts, when the store itself was out of reach (a server outage longer than
// the retry budget is no fault of the run).
int record_failure(db::Store& store, const db::Lease& lease, const std::exception& e) {
  const Settlement failure = failure_of(e);
  const bool outage = failure.status == db::status::kCrashed;
  std::cerr << "worker: run " << lease.run << (outage ? " interrupted: " : " failed: ")
            << failure.why << "\n";
  const Settlement settled = settle_outcome(store, lease, e);
  if (settled.lease_lost) {
    std::cerr << "worker: " << settled.record_error << "\n";
    return experiments::kWorkerFenced;
  }
  if (!settled.record_error.empty())
    std::cerr << "worker: run " << lease.run
              << " could not be marked either: " << settled.record_error << "\n";
  return outage ? experiments::kWorkerStoreLost : experiments::kWorkerFailed;
}

// A data-parallel run's other ranks: the tasks of this Slurm step, or children on this machine.
// Null for a run of one process.
std::unique_ptr<RankLaunch> start_ranks(const RunConfig& config, const db::StorePaths& paths,
                                        const std::optional<SlurmStepRanks>& step, int64_t run) {
  if (step && step->world != config.train.processes)
    throw InputError("fathom worker", 0, "train.processes",
                     "run " + std::to_string(run) +
                         " has train.processes = " + std::to_string(config.train.processes) +
                         " but its Slurm step has " + std::to_string(step->world) + " tasks");
  if (step && step->world > 1)
    return RankLaunch::lead(config, paths.cache_root, step->rendezvous_file, host_name());
  if (needs_rank_group(config.train))
    return RankLaunch::local(config, paths.cache_root, 0, "train.processes");
  return nullptr;
}

// Task 0 of a Slurm step that ends without leading a run lets the other tasks go.
struct ReleaseFollowers {
  const std::optional<SlurmStepRanks>& step;
  ~ReleaseFollowers() {
    if (step) release_slurm_followers(*step);
  }
};

int run_worker(const WorkerArgs& args, const GlobalOptions& global) {
  install_stop_signals();
  const std::string db_path = resolve_db_path(global);
  const db::StorePaths paths = resolve_store_paths(global);
  const auto step =
      args.slurm_ranks ? std::optional(slurm_step_ranks(paths.artifacts_root)) : std::nullopt;
  if (step && step->rank > 0) return follow_slurm_step(*step);  // never opens the store
  const ReleaseFollowers release{step};
  auto store = db::Store::open(db_path);
  std::optional<db::RunRecord> run;
  try {
    run = take_run(store, args);
  } catch (const db::LeaseLost& e) {
    std::cerr << "worker: " << e.what() << "\n";
    return experiments::kWorkerFenced;
  }
  if (!run) {
    std::cerr << "worker: no queued run left in sweep " << args.sweep << "\n";
    return experiments::kWorkerEnded;
  }
  const db::Lease lease{run->id, run->lease};
  const int64_t id = run->id;
  const std::string log = experiments::worker_log_path(paths.run_dir(id));
  if (args.run == 0) {
    std::cerr << "worker: run " << id << " (" << run->name << "), log " << log << "\n";
    redirect_output_to(log);
  }

  TrainOutcome outcome;
  try {
    record_worker(store, lease, log, args.heartbeat_s);
    RunConfig config =
        load_config_string(run->config_yaml, "run " + std::to_string(id) + " config", "");
    int threads = args.threads;
    if (threads <= 0) threads = experiments::this_worker_cores();
    if (threads > 0) apply_overrides(config, {"train.threads=" + std::to_string(threads)});
    if (!args.device.empty()) config.device = args.device;
    check_config(config);
    check_model_methods(config);
    check_model_fits(config);
    TrainOptions options;
    options.run_id = id;
    options.artifacts_dir = paths.run_dir(id);
    options.cache_dir = paths.cache_root;
    options.resume = true;  // a new run has no checkpoint; a requeued one continues from its own
    options.progress = !args.no_progress;
    options.stop_requested = &stop_requested();
    options.lease = lease;
    options.heartbeat_s = args.heartbeat_s;
    // A data-parallel run: this worker is rank 0 (docs/distributed.md).
    const std::unique_ptr<RankLaunch> ranks = start_ranks(config, paths, step, id);
    if (ranks) options.ranks = &ranks->group();
    std::cerr << "worker: run " << id << " (" << run->name << ") on " << host_name()
              << " under lease " << lease.generation << " -> " << store.path() << "\n";
    outcome = train_run(config, store, options);
  } catch (const db::LeaseLost& e) {
    // Declared lost (and requeued, taken by another worker) or cancelled meanwhile: the run's
    // files and rows are someone else's now. Stop without writing.
    std::cerr << "worker: " << e.what() << "\n";
    return experiments::kWorkerFenced;
  } catch (const std::exception& e) {
    return record_failure(store, lease, e);
  }
  const Settlement settled = settle_outcome(store, lease, outcome, {/*requeue=*/true, ""});
  if (outcome.status != TrainOutcome::kStopped) {
    std::cerr << "worker: run " << id << " " << outcome.status << " after " << outcome.updates
              << " updates\n";
    return experiments::kWorkerEnded;
  }
  if (settled.lease_lost) {
    std::cerr << "worker: run " << id << " not requeued: " << settled.record_error << "\n";
    return experiments::kWorkerEnded;
  }
  std::cerr << "worker: run " << id << " " << settled.why << "\n";
  // The launcher may have to give the worker's place back (Slurm: requeue the task).
  if (const std::string done = experiments::after_worker_requeue(stop_signal()); !done.empty())
    std::cerr << "worker: " << done << "\n";
  return experiments::kWorkerRequeued;
}

}  // namespace

void add_worker_command(CLI::App& app, GlobalOptions& global) {
  auto args = std::make_shared<WorkerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "worker", "Train one run of a sweep: the process launchers start (docs/cluster.md)");
  cmd->add_option("--sweep", args->sweep, "claim the next queued run of this sweep");
  cmd->add_option("--run", args->run, "train this run, already claimed by the launcher");
  cmd->add_option("--lease", args->lease, "with --run: the lease generation of that claim");
  cmd->add_option("--device", args->device, "auto | cpu | cuda | cuda:N (overrides the config)");
  cmd->add_option("--threads", args->threads,
                  "train.threads (default: the cores its launcher gave it, e.g. Slurm's "
                  "$SLURM_CPUS_PER_TASK, else the config)");
  cmd->add_option("--heartbeat", args->heartbeat_s, "seconds between heartbeats (default 20)")
      ->check(CLI::Range(db::kMinHeartbeatInterval, 3600.0));
  cmd->add_flag("--no-progress", args->no_progress, "no progress bar");
  cmd->add_flag("--slurm-ranks", args->slurm_ranks,
                "the tasks of this Slurm step are one run's data-parallel ranks: task 0 claims "
                "and leads it, the others follow (the Slurm launcher's, for train.processes > 1)");
  cmd->callback([args, &global] {
    const int code = run_worker(*args, global);
    if (code != 0) throw CommandExit{code};
  });
}

}  // namespace fathom::cli
