// The launcher registry: one line per launcher (experiments/launcher_registry.h), each
// launcher's entry declared here beside its call (no header names them).
#include <algorithm>
#include <stdexcept>

#include "base/util/error.h"
#include "base/util/registry.h"
#include "base/util/strings.h"
#include "db/run_status.h"
#include "experiments/launcher_registry.h"

namespace fathom::experiments {

LauncherEntry local_launcher_entry();  // local_launcher.cpp
LauncherEntry slurm_launcher_entry();  // slurm_launcher.cpp

namespace {

// The registry and its default: the launcher assumed when none claims a worker, and the one a
// sweep gets when neither --launcher nor a section of the sweep file names another.
struct Launchers {
  Registry<LauncherEntry> all{"launcher"};
  std::string fallback;
};

Launchers& registered() {
  static Launchers launchers = [] {
    Launchers r;
    r.fallback = local_launcher_entry().name;
    for (LauncherEntry e : {local_launcher_entry(), slurm_launcher_entry()}) r.all.add(e.name, e);
    return r;
  }();
  return launchers;
}

const Registry<LauncherEntry>& launchers() { return registered().all; }

const LauncherEntry& fallback() { return *launchers().find(registered().fallback); }

// Workers recorded before launchers existed carry only worker.pid: they were local.
const LauncherEntry& entry_of(const WorkerTags& tags) {
  auto it = tags.find(worker_tag::kLauncher);
  const LauncherEntry* e = it == tags.end() ? nullptr : launchers().find(it->second);
  return e ? *e : fallback();
}

const LauncherEntry& entry_of_this_process() {
  for (const auto& [name, e] : launchers())
    if (e.started_this_process && e.started_this_process()) return e;
  return fallback();
}

}  // namespace

void add_launcher(LauncherEntry entry) {
  if (!entry.section.key.empty() && launcher_with_section(entry.section.key))
    throw std::logic_error("launcher " + entry.name + ": sweep-file section '" + entry.section.key +
                           "' is another launcher's");
  registered().all.add(entry.name, entry);
}

const LauncherEntry& launcher_entry(const std::string& name) {
  if (const LauncherEntry* e = launchers().find(name)) return *e;
  throw InputError("--launcher", 0, "--launcher", launchers().unknown_name(name));
}

const LauncherEntry& chosen_launcher(const SweepSpec& spec, const std::string& flag) {
  if (!flag.empty()) return launcher_entry(flag);
  return spec.launcher ? launcher_entry(spec.launcher->launcher) : fallback();
}

const LauncherEntry* launcher_with_section(const std::string& key) {
  for (const auto& [name, e] : launchers())
    if (!key.empty() && e.section.key == key) return &e;
  return nullptr;
}

std::vector<std::string> launcher_section_keys() {
  std::vector<std::string> keys;
  for (const auto& [name, e] : launchers())
    if (!e.section.key.empty()) keys.push_back(e.section.key);
  return keys;
}

std::string describe_launchers() {
  std::vector<std::string> words;
  for (const auto& [name, e] : launchers()) {
    std::string word = name;
    if (name == registered().fallback) word += " (default)";
    if (!e.section.key.empty())
      word += " (default when the sweep file has a " + e.section.key + ": section)";
    words.push_back(word);
  }
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

std::vector<std::string> launchers_handing_over() {
  std::vector<std::string> names;
  for (const auto& [name, e] : launchers())
    if (!e.follows_until_done) names.push_back(name);
  return names;
}

std::vector<std::string> launcher_names() { return launchers().names(); }

std::optional<std::string> stop_worker(const db::RunRecord& run, const WorkerTags& tags) {
  return entry_of(tags).stop(run, tags);
}

std::optional<std::string> worker_gone(const db::RunRecord& run, const WorkerTags& tags) {
  return entry_of(tags).gone(run, tags);
}

std::optional<std::string> put_down_worker(const db::RunRecord& run, const WorkerTags& tags) {
  const auto& e = entry_of(tags);
  return e.put_down ? e.put_down(run, tags) : std::nullopt;
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

std::string default_launcher() { return registered().fallback; }

std::string this_worker_launcher() { return entry_of_this_process().name; }

WorkerTags this_worker_tags() {
  const LauncherEntry& e = entry_of_this_process();
  WorkerTags tags = e.this_worker_tags();
  tags[worker_tag::kLauncher] = e.name;
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
