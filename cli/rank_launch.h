#pragma once
// The ranks of a data-parallel run (train.processes > 1, docs/distributed.md) that this process
// leads as rank 0: it serves the rendezvous, hands every other rank the run's config and cache
// folder, and connects the Gloo group. On one machine it also starts the other ranks (`fathom
// rank`, children that die with it); under Slurm they are the step's other tasks
// (cli/slurm_ranks.h).
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/config/config.h"
#include "core/train/rank_group.h"

namespace fathom::cli {

class RankLaunch {
 public:
  // Starts config.train.processes - 1 `fathom rank` children on this machine, the rendezvous on
  // 127.0.0.1:`port` (0: any free port; one in use is refused naming `port_option`).
  static std::unique_ptr<RankLaunch> local(const RunConfig& config, const std::string& cache_dir,
                                           int port, const std::string& port_option);
  // Rank 0 of ranks started by someone else (Slurm's tasks): `rendezvous_file` receives the
  // address they join, `gloo_host` is this host's address for the group's transport.
  static std::unique_ptr<RankLaunch> lead(const RunConfig& config, const std::string& cache_dir,
                                          const std::string& rendezvous_file,
                                          const std::string& gloo_host);
  // The group is closed first (a rank still waiting in a collective gets an error and ends),
  // then the children are reaped; one still running after a grace period is killed -- at once
  // when rank 0 is failing (destroyed by an exception).
  ~RankLaunch();

  RankGroup& group() { return *group_; }

 private:
  RankLaunch() = default;
  void hand_over(const RunConfig& config, const std::string& cache_dir, const std::string& host);
  std::unique_ptr<RankGroup> group_;
  std::vector<pid_t> children_;
};

// What rank 0 hands the others (RankGroup::publish keys).
inline constexpr const char* kRankConfigKey = "config";
inline constexpr const char* kRankCacheKey = "cache_dir";

// "HOST:PORT" as `fathom rank --rendezvous` and a Slurm step's rendezvous file give it; an
// InputError naming `what` (the option, or the file) otherwise.
RankAddress parse_rank_address(const std::string& text, const std::string& what);

// The other side, `fathom rank` and a Slurm task other than 0: joins the group at `address`,
// takes the run's config from rank 0 and trains its share of every update (follow_run). Returns
// the process's exit status.
int follow_rank(int rank, int world, const RankAddress& address, const std::string& gloo_host);

}  // namespace fathom::cli
