#include "cli/slurm_ranks.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "base/util/error.h"
#include "base/util/file_write.h"
#include "base/util/process.h"
#include "base/util/strings.h"
#include "cli/rank_launch.h"
#include "experiments/worker_exit.h"

namespace fathom::cli {
namespace fs = std::filesystem;

namespace {

constexpr const char* kNoRun = "none";

std::string slurm_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value)
    throw InputError("fathom worker", 0, "--slurm-ranks",
                     std::string("$") + name +
                         " is not set: --slurm-ranks runs in a Slurm step "
                         "(srun --ntasks N)");
  return value;
}

// A requeued task keeps its job id and starts its steps from 0 again: the restart count keeps
// its rendezvous apart from the earlier attempt's.
std::string restarts() {
  const char* count = std::getenv("SLURM_RESTART_COUNT");
  return count && *count ? count : "0";
}

}  // namespace

SlurmStepRanks slurm_step_ranks(const std::string& artifacts_root) {
  SlurmStepRanks step;
  step.rank = std::stoi(slurm_env("SLURM_PROCID"));
  step.world = std::stoi(slurm_env("SLURM_NTASKS"));
  step.rendezvous_file =
      (fs::path(artifacts_root) / "slurm" / "rendezvous" /
       (slurm_env("SLURM_JOB_ID") + "." + slurm_env("SLURM_STEP_ID") + "." + restarts()))
          .string();
  if (step.rank == 0) fs::create_directories(fs::path(step.rendezvous_file).parent_path());
  return step;
}

void release_slurm_followers(const SlurmStepRanks& step) {
  if (step.world <= 1 || fs::exists(step.rendezvous_file)) return;
  try {
    write_file_or_throw(step.rendezvous_file, std::string(kNoRun) + "\n", "the step's rendezvous");
  } catch (const std::exception& e) {
    std::cerr << "worker: " << e.what() << "\n";  // the others time out instead
  }
}

int follow_slurm_step(const SlurmStepRanks& step) {
  // Task 0 claims its run and serves the rendezvous first: seconds, or minutes on a busy store.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (!fs::exists(step.rendezvous_file)) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("rank " + std::to_string(step.rank) +
                               ": task 0 wrote no address to " + step.rendezvous_file +
                               " in 10 minutes");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string address;
  for (int tries = 0; address.empty() && tries < 50; ++tries) {  // renamed into place: whole
    std::ifstream in(step.rendezvous_file);
    std::getline(in, address);
    if (address.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (trim(address) == kNoRun) {
    std::cerr << "worker: rank " << step.rank << ": task 0 leads no run; nothing to follow\n";
    return experiments::kWorkerEnded;
  }
  return follow_rank(step.rank, step.world, parse_rank_address(trim(address), step.rendezvous_file),
                     host_name());
}

}  // namespace fathom::cli
