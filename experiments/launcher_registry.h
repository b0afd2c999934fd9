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
};

// Every launcher's cancel_pending over a sweep's tags (cancel_sweep in run_control.h).
std::vector<std::string> cancel_pending_workers(const std::vector<WorkerTags>& sweep_tags);

LauncherEntry local_launcher_entry();
LauncherEntry slurm_launcher_entry();

}  // namespace fathom::experiments
