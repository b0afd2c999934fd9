// The launcher registry: one line per launcher (experiments/launcher_registry.h).
#include <algorithm>

#include "base/util/error.h"
#include "base/util/strings.h"
#include "experiments/launcher_registry.h"

namespace fathom::experiments {
namespace {

const std::vector<LauncherEntry>& entries() {
  static const std::vector<LauncherEntry> all = {
      local_launcher_entry(),
      slurm_launcher_entry(),
  };
  return all;
}

// Workers recorded before launchers existed carry only worker.pid: they were local.
const LauncherEntry& entry_of(const WorkerTags& tags) {
  auto it = tags.find("worker.launcher");
  const std::string name = it == tags.end() ? "local" : it->second;
  for (const auto& e : entries())
    if (e.name == name) return e;
  return entries().front();
}

}  // namespace

std::vector<std::string> launcher_names() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.push_back(e.name);
  return names;
}

std::unique_ptr<Launcher> make_launcher(const std::string& name, const SweepSpec& spec) {
  for (const auto& e : entries())
    if (e.name == name) return e.make(spec);
  throw InputError(
      "--launcher", 0, "--launcher",
      "unknown launcher '" + name + "' (launchers: " + join(launcher_names(), ", ") + ")");
}

std::optional<std::string> stop_worker(const db::RunRecord& run, const WorkerTags& tags) {
  return entry_of(tags).stop(run, tags);
}

std::optional<std::string> worker_gone(const db::RunRecord& run, const WorkerTags& tags) {
  return entry_of(tags).gone(run, tags);
}

std::map<std::string, std::string> worker_states(const std::vector<WorkerTags>& sweep_tags) {
  std::map<std::string, std::string> all;
  for (const auto& e : entries()) all.merge(e.states(sweep_tags));
  return all;
}

std::string worker_job(const WorkerTags& tags) {
  if (auto it = tags.find("slurm.job"); it != tags.end()) return it->second;
  if (auto it = tags.find("worker.pid"); it != tags.end()) return "pid " + it->second;
  return "";
}

std::vector<std::string> cancel_pending_workers(const std::vector<WorkerTags>& sweep_tags) {
  std::vector<std::string> problems;
  for (const auto& e : entries()) {
    auto more = e.cancel_pending(sweep_tags);
    problems.insert(problems.end(), more.begin(), more.end());
  }
  return problems;
}

}  // namespace fathom::experiments
