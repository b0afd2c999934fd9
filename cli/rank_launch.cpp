#include "cli/rank_launch.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "base/config/config_io.h"
#include "base/util/error.h"
#include "base/util/file_write.h"
#include "cli/stop_signals.h"
#include "core/train/device.h"
#include "core/train/reduce_backend.h"
#include "core/train/trainer.h"
#include "db/run_status.h"

namespace fathom::cli {
namespace fs = std::filesystem;

namespace {

std::chrono::milliseconds rank_timeout(const RunConfig& config) {
  return std::chrono::seconds(config.train.rank_timeout_s);
}

torch::Device device_of_rank(const RunConfig& config, int rank) {
  return rank_device(resolve_device(config.device), rank, config.train.processes);
}

// What sums this rank's gradients (every rank resolves the same config to the same backend).
ReduceBackend rank_backend(const RunConfig& config, int rank) {
  return resolve_reduce_backend(config.train, device_of_rank(config, rank));
}

// fork + exec of `argv`; the child is killed when this process dies (no rank trains on alone).
pid_t start_rank(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed: " + std::string(strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the parent died before the line above
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

void RankLaunch::hand_over(const RunConfig& config, const std::string& cache_dir,
                           const std::string& host) {
  group_->publish(kRankConfigKey, config_to_yaml(config));
  group_->publish(kRankCacheKey, cache_dir);
  group_->connect(host, rank_timeout(config), rank_backend(config, 0), device_of_rank(config, 0));
}

std::unique_ptr<RankLaunch> RankLaunch::local(const RunConfig& config, const std::string& cache_dir,
                                              int port, const std::string& port_option) {
  const int world = config.train.processes;
  std::unique_ptr<RankLaunch> launch(new RankLaunch());
  launch->group_ = RankGroup::lead(world, RankAddress{"127.0.0.1", port}, port_option);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string address = "127.0.0.1:" + std::to_string(launch->group_->port());
  for (int rank = 1; rank < world; ++rank)
    launch->children_.push_back(
        start_rank({self, "rank", "--rendezvous", address, "--rank", std::to_string(rank),
                    "--world", std::to_string(world), "--gloo-host", "127.0.0.1"}));
  launch->hand_over(config, cache_dir, "127.0.0.1");
  return launch;
}

std::unique_ptr<RankLaunch> RankLaunch::lead(const RunConfig& config, const std::string& cache_dir,
                                             const std::string& rendezvous_file,
                                             const std::string& gloo_host) {
  std::unique_ptr<RankLaunch> launch(new RankLaunch());
  launch->group_ =
      RankGroup::lead(config.train.processes, RankAddress{"0.0.0.0", 0}, "train.processes");
  // Written aside and renamed: a rank polling for it never reads half an address.
  write_file_or_throw(rendezvous_file + ".tmp",
                      gloo_host + ":" + std::to_string(launch->group_->port()) + "\n",
                      "the ranks' rendezvous address");
  fs::rename(rendezvous_file + ".tmp", rendezvous_file);
  launch->hand_over(config, cache_dir, gloo_host);
  return launch;
}

RankLaunch::~RankLaunch() {
  group_.reset();
  // Rank 0 failed (a rank died or hung, the lease was lost): the others must not outlive it.
  if (std::uncaught_exceptions() > 0)
    for (pid_t child : children_) kill(child, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (pid_t child : children_) {
    int status = 0;
    while (waitpid(child, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

RankAddress parse_rank_address(const std::string& text, const std::string& what) {
  const auto colon = text.rfind(':');
  const std::string digits = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool numeric = !digits.empty() && digits.size() <= 5 &&
                       digits.find_first_not_of("0123456789") == std::string::npos;
  const int port = numeric ? std::stoi(digits) : 0;
  if (colon == 0 || port <= 0 || port > 65535)
    throw InputError(what, 0, "", "expected HOST:PORT, got '" + text + "'");
  return RankAddress{text.substr(0, colon), port};
}

int follow_rank(int rank, int world, const RankAddress& address, const std::string& gloo_host) {
  auto group = RankGroup::follow(rank, world, address);
  const auto wait = std::chrono::minutes(5);  // rank 0 publishes before it waits for the group
  RunConfig config = load_config_string(group->fetch(kRankConfigKey, wait), "rank 0's config", "");
  if (config.train.processes != world)
    throw InputError("fathom rank", 0, "--world",
                     std::to_string(world) + " ranks, but rank 0's run has train.processes = " +
                         std::to_string(config.train.processes));
  TrainOptions options;
  options.cache_dir = group->fetch(kRankCacheKey, wait);
  group->connect(gloo_host, rank_timeout(config), rank_backend(config, rank),
                 device_of_rank(config, rank));
  options.progress = false;
  options.ranks = group.get();
  install_stop_signals();  // Ctrl+C reaches every rank; all stop where any one asked
  options.stop_requested = &stop_requested();
  const TrainOutcome outcome = follow_run(config, options);
  // Stopped by its own signal: 128 + it, as `fathom train`; by another rank's: 0.
  return outcome.status == TrainOutcome::kStopped && stop_signal() > 0 ? 128 + stop_signal() : 0;
}

}  // namespace fathom::cli
