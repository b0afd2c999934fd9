#pragma once
// A launcher's whole protocol, one LauncherEntry per launcher file, registered once in
// experiments/launchers.cpp: how to make it for a sweep, its section of the sweep file, how
// `fathom sweep` treats it, and what the store's other users (cancel, status, resume) need from
// it for a worker it started, knowing only the worker's tags. No other file names a launcher.
#include <any>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiments/launcher.h"
#include "experiments/sweep_spec.h"

namespace YAML {
class Node;
}

namespace fathom::experiments {

// The section of the sweep file a launcher owns (`slurm:` for Slurm): its settings. A file
// with the section asks for that launcher unless `fathom sweep --launcher` names another.
struct LauncherSection {
  std::string key;  // the sweep file's key; "" when the launcher takes no settings
  std::string doc;  // what the section holds, one line (docs, --launcher's help)
  // Parses and checks the section's node; errors are InputErrors naming `file`, the line and
  // "<key>.<field>". What it returns is SweepSpec::launcher->settings (section_settings<T>).
  std::any (*parse)(const YAML::Node& node, const std::string& file) = nullptr;
};

struct LauncherEntry {
  std::string name;  // the value of --launcher and of the worker.launcher tag
  std::unique_ptr<Launcher> (*make)(const SweepSpec& spec) = nullptr;
  LauncherSection section;
  // `fathom sweep` follows the launch until every run ended (local); false: it returns once
  // the workers are handed over (a cluster's queue keeps them), unless --wait.
  bool follows_until_done = true;
  // Its workers run on this machine: `fathom sweep --devices` maps its slots to devices.
  bool uses_local_devices = false;

  // See stop_worker() / worker_gone() in launcher.h.
  std::optional<std::string> (*stop)(const db::RunRecord& run, const WorkerTags& tags) = nullptr;
  std::optional<std::string> (*gone)(const db::RunRecord& run, const WorkerTags& tags) = nullptr;
  // See put_down_worker() in launcher.h; null: the launcher cannot (its workers then stop at
  // their first write, fenced off).
  std::optional<std::string> (*put_down)(const db::RunRecord& run,
                                         const WorkerTags& tags) = nullptr;
  // Cancels workers that have not started yet (a Slurm array's pending tasks), given the tags
  // of a whole sweep's runs. Returns problems to report.
  std::vector<std::string> (*cancel_pending)(const std::vector<WorkerTags>& sweep_tags) = nullptr;
  // The launcher's view of its workers, by worker job (see worker_job()), for status views.
  std::map<std::string, std::string> (*states)(const std::vector<WorkerTags>& sweep_tags) = nullptr;
  // Where a worker it started runs, as the user names it (see worker_job()).
  std::string (*job_of)(const WorkerTags& tags) = nullptr;
  // What a status view shows for a queued run no live worker holds ("array 17": a pending task
  // of that array will claim it); "" for nothing.
  std::string (*queued_state)(const WorkerTags& tags) = nullptr;

  // ---- inside a worker process (cli/cmd_worker.cpp) ----
  // Whether this process is a worker this launcher started (Slurm: $SLURM_JOB_ID is set).
  // Null for a launcher that never claims a process (the default one: local).
  bool (*started_this_process)() = nullptr;
  // What it records about this worker, beside worker.launcher/host/pid/log: what it needs to
  // find, stop and judge the worker later from any machine.
  WorkerTags (*this_worker_tags)() = nullptr;
  // The cores it gave this worker (Slurm: $SLURM_CPUS_PER_TASK), the default of its LibTorch
  // threads; 0 when it says nothing.
  int (*this_worker_cores)() = nullptr;
  // The worker put its run back in the queue on `signal`: what the launcher must do so the
  // worker's place comes back (Slurm: requeue the task on its time-limit warning). A line for
  // the worker's log, "" when nothing was done.
  std::string (*after_requeue)(int signal) = nullptr;
};

// Adds a launcher defined outside experiments/launchers.cpp (a test's own); call it before
// any thread uses the registry. A name or section key already registered is a logic_error.
void add_launcher(LauncherEntry entry);

// The launcher `name`; an InputError at --launcher naming the registered ones otherwise.
const LauncherEntry& launcher_entry(const std::string& name);
// The launcher of a sweep: `flag` (--launcher) when given, else the one whose section the
// sweep file has, else the default (local).
const LauncherEntry& chosen_launcher(const SweepSpec& spec, const std::string& flag);
// The launcher whose sweep-file section is `key`; null when none is.
const LauncherEntry* launcher_with_section(const std::string& key);
// Every launcher's section key, for the sweep file's list of keys.
std::vector<std::string> launcher_section_keys();
// For --launcher's help: "local (default) or slurm (default when the sweep file has a
// slurm: section)".
std::string describe_launchers();
// The launchers `fathom sweep` does not follow to the end without --wait ("slurm").
std::vector<std::string> launchers_handing_over();

// The settings launcher `name` parsed from its section of the sweep file; `fallback` when the
// file has no such section.
template <typename Settings>
Settings section_settings(const SweepSpec& spec, const std::string& name, Settings fallback) {
  if (!spec.launcher || spec.launcher->launcher != name) return fallback;
  return std::any_cast<Settings>(spec.launcher->settings);
}

// Every launcher's cancel_pending over a sweep's tags (cancel_sweep in run_control.h).
std::vector<std::string> cancel_pending_workers(const std::vector<WorkerTags>& sweep_tags);

}  // namespace fathom::experiments
