#pragma once
// What each launcher file registers (one entry in experiments/launchers.cpp): how to make it
// for a sweep, and what the store's other users (cancel, status, resume) need from it for
// a worker it started, knowing only the worker's tags.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/launcher.h"

namespace fathom::experiments {

struct LauncherEntry {
  std::string name;  // the value of --launcher and of the worker.launcher tag
  std::unique_ptr<Launcher> (*make)(const SweepSpec& spec);
  // See stop_worker() / worker_gone() in launcher.h.
  std::optional<std::string> (*stop)(const db::RunRecord& run, const WorkerTags& tags);
  std::optional<std::string> (*gone)(const db::RunRecord& run, const WorkerTags& tags);
  // Cancels workers that have not started yet (a Slurm array's pending tasks), given the tags
  // of a whole sweep's runs. Returns problems to report.
  std::vector<std::string> (*cancel_pending)(const std::vector<WorkerTags>& sweep_tags);
  // The launcher's view of its workers, by worker job (see worker_job()), for status views.
  std::map<std::string, std::string> (*states)(const std::vector<WorkerTags>& sweep_tags);
  // Where a worker it started runs, as the user names it (see worker_job()).
  std::string (*job_of)(const WorkerTags& tags);
  // What a status view shows for a queued run no live worker holds ("array 17": a pending task
  // of that array will claim it); "" for nothing.
  std::string (*queued_state)(const WorkerTags& tags);

  // ---- inside a worker process (cli/cmd_worker.cpp) ----
  // Whether this process is a worker this launcher started (Slurm: $SLURM_JOB_ID is set).
  // Null for the launcher assumed when no other claims the process (local).
  bool (*started_this_process)();
  // What it records about this worker, beside worker.launcher/host/pid/log: what it needs to
  // find, stop and judge the worker later from any machine.
  WorkerTags (*this_worker_tags)();
  // The cores it gave this worker (Slurm: $SLURM_CPUS_PER_TASK), the default of its LibTorch
  // threads; 0 when it says nothing.
  int (*this_worker_cores)();
  // The worker put its run back in the queue on `signal`: what the launcher must do so the
  // worker's place comes back (Slurm: requeue the task on its time-limit warning). A line for
  // the worker's log, "" when nothing was done.
  std::string (*after_requeue)(int signal);
};

// Every launcher's cancel_pending over a sweep's tags (cancel_sweep in run_control.h).
std::vector<std::string> cancel_pending_workers(const std::vector<WorkerTags>& sweep_tags);

LauncherEntry local_launcher_entry();
LauncherEntry slurm_launcher_entry();

}  // namespace fathom::experiments
