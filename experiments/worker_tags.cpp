#include "experiments/worker_tags.h"

#include <filesystem>

#include "base/util/process.h"
#include "base/util/strings.h"

namespace fathom::experiments {

std::string worker_log_path(const std::string& run_dir) {
  return (std::filesystem::path(run_dir) / "worker.log").string();
}

WorkerTags holder_tags(const std::string& launcher, long long pid, const std::string& log,
                       double heartbeat_s) {
  WorkerTags tags{{worker_tag::kLauncher, launcher},
                  {worker_tag::kHost, host_name()},
                  {worker_tag::kPid, std::to_string(pid)}};
  if (!log.empty()) tags[worker_tag::kLog] = log;
  const std::string started = process_start_ticks(static_cast<pid_t>(pid));
  if (!started.empty()) tags[worker_tag::kStarted] = started;
  if (heartbeat_s > 0) tags[worker_tag::kHeartbeatInterval] = format_number(heartbeat_s);
  return tags;
}

double recorded_heartbeat_interval(const db::RunRecord& run, const WorkerTags& tags,
                                   double otherwise) {
  const auto it = tags.find(worker_tag::kHeartbeatInterval);
  if (it == tags.end() || tags_of_earlier_holder(run, tags)) return otherwise;
  try {
    const double seconds = std::stod(it->second);
    return seconds > 0 ? seconds : otherwise;
  } catch (const std::exception&) {
    return otherwise;
  }
}

void record_worker_tags(db::Store& store, const db::Lease& lease, const WorkerTags& tags) {
  for (const auto& [key, value] : tags) store.set_tag(lease, key, value);
  store.set_tag(lease, worker_tag::kLease, std::to_string(lease.generation));
}

bool tags_of_earlier_holder(const db::RunRecord& run, const WorkerTags& tags) {
  const auto it = tags.find(worker_tag::kLease);
  if (it == tags.end()) return false;
  try {
    return std::stoll(it->second) < run.lease;
  } catch (const std::exception&) {
    return false;
  }
}

std::string external_writer(const db::RunRecord& run, const WorkerTags& tags) {
  const auto it = tags.find(worker_tag::kExternal);
  if (it == tags.end() || tags_of_earlier_holder(run, tags)) return "";
  return it->second;
}

}  // namespace fathom::experiments
