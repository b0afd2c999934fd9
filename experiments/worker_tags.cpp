#include "experiments/worker_tags.h"

#include <filesystem>

#include "base/util/process.h"

namespace fathom::experiments {

std::string worker_log_path(const std::string& run_dir) {
  return (std::filesystem::path(run_dir) / "worker.log").string();
}

WorkerTags holder_tags(const std::string& launcher, long long pid, const std::string& log) {
  WorkerTags tags{{worker_tag::kLauncher, launcher},
                  {worker_tag::kHost, host_name()},
                  {worker_tag::kPid, std::to_string(pid)}};
  if (!log.empty()) tags[worker_tag::kLog] = log;
  return tags;
}

void record_worker_tags(db::Store& store, const db::Lease& lease, const WorkerTags& tags) {
  for (const auto& [key, value] : tags) store.set_tag(lease, key, value);
}

}  // namespace fathom::experiments
