// The launcher registry: one line per launcher (experiments/launcher_registry.h).
#include <algorithm>

#include "base/util/error.h"
#include "base/util/registry.h"
#include "base/util/strings.h"
#include "db/run_status.h"
#include "experiments/launcher_registry.h"

namespace fathom::experiments {
namespace {

const Registry<LauncherEntry>& launchers() {
  static const Registry<LauncherEntry> all = [] {
    Registry<LauncherEntry> r("launcher");
    for (LauncherEntry e : {local_launcher_entry(), slurm_launcher_entry()}) r.add(e.name, e);
    return r;
  }();
  return all;
}

// The launcher assumed when none claims a worker: the first registered.
const LauncherEntry& fallback() { return launchers().begin()->second; }

// Workers recorded before launchers existed carry only worker.pid: they were local.
const LauncherEntry& entry_of(const WorkerTags& tags) {
  auto it = tags.find("worker.launcher");
  const LauncherEntry* e = it == tags.end() ? nullptr : launchers().find(it->second);
  return e ? *e : fallback();
}

const LauncherEntry& entry_of_this_process() {
  for (const auto& [name, e] : launchers())
    if (e.started_this_process && e.started_this_process()) return e;
  return fallback();
}

}  // namespace

std::vector<std::string> launcher_names() { return launchers().names(); }

std::unique_ptr<Launcher> make_launcher(const std::string& name, const SweepSpec& spec) {
  if (const LauncherEntry* e = launchers().find(name)) return e->make(spec);
  throw InputError("--launcher", 0, "--launcher", launchers().unknown_name(name));
}

std::optional<std::string> stop_worker(const db::RunRecord& run, const WorkerTags& tags) {
  return entry_of(tags).stop(run, tags);
}

std::optional<std::string> worker_gone(const db::RunRecord& run, const WorkerTags& tags) {
  return entry_of(tags).gone(run, tags);
}

std::map<std::string, std::string> worker_states(const std::vector<WorkerTags>& sweep_tags) {
  std::map<std::string, std::string> all;
  for (const auto& [name, e] : launchers()) all.merge(e.states(sweep_tags));
  return all;
}

std::string worker_job(const WorkerTags& tags) { return entry_of(tags).job_of(tags); }

std::string worker_state(const db::RunRecord& run, const WorkerTags& tags,
                         const std::map<std::string, std::string>& states) {
  const std::string job = worker_job(tags);
  if (auto it = states.find(job); !job.empty() && it != states.end()) return it->second;
  if (run.status == db::status::kQueued) return entry_of(tags).queued_state(tags);
  return "";
}

std::string this_worker_launcher() { return entry_of_this_process().name; }

WorkerTags this_worker_tags() {
  const LauncherEntry& e = entry_of_this_process();
  WorkerTags tags = e.this_worker_tags();
  tags["worker.launcher"] = e.name;
  return tags;
}

int this_worker_cores() { return entry_of_this_process().this_worker_cores(); }

std::string after_worker_requeue(int signal) {
  return entry_of_this_process().after_requeue(signal);
}

std::vector<std::string> cancel_pending_workers(const std::vector<WorkerTags>& sweep_tags) {
  std::vector<std::string> problems;
  for (const auto& [name, e] : launchers()) {
    auto more = e.cancel_pending(sweep_tags);
    problems.insert(problems.end(), more.begin(), more.end());
  }
  return problems;
}

}  // namespace fathom::experiments
