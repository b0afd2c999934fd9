#pragma once
// The processes of one data-parallel run (docs/distributed.md): a rendezvous store that rank 0
// serves over TCP (c10d::TCPStore), a Gloo process group (c10d::ProcessGroupGloo) over it, and
// for GPU ranks an NCCL group beside it (c10d::ProcessGroupNCCL, train.reduce_backend).
// LibTorch's own collectives: nothing here implements a reduction. The store also carries what
// rank 0 hands the others once per session (the config, the model and optimizer state).
//
// c10d's headers stay in rank_group.cpp: the trainer sees only this interface.
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/train/reduce_backend.h"

namespace fathom {

struct RankAddress {
  std::string host = "127.0.0.1";  // where rank 0 serves the rendezvous
  int port = 0;                    // 0 (rank 0 only): any free port, read back with port()
};

class RankGroup {
 public:
  // Rank 0 of `world`: serves the rendezvous at `address` before the other ranks start (so
  // they are given its port). A port in use throws InputError naming `port_option`.
  static std::unique_ptr<RankGroup> lead(int world, const RankAddress& address,
                                         const std::string& port_option);
  // Rank `rank` (> 0) of `world`, joining rank 0's rendezvous.
  static std::unique_ptr<RankGroup> follow(int rank, int world, const RankAddress& address);
  ~RankGroup();

  int rank() const { return rank_; }
  int world() const { return world_; }
  bool leads() const { return rank_ == 0; }
  int port() const;  // the rendezvous port actually served or joined

  // Builds the Gloo group: blocks until every rank arrived (or `timeout` passed: throws).
  // `gloo_host`: the address this rank's Gloo transport binds ("" : this host's name).
  // `timeout` then bounds every collective: a rank that hangs longer ends the others' wait.
  // With kNccl (every rank the same; nccl_built()), an NCCL group too, which then sums every
  // CUDA tensor; CPU tensors (the evaluation's sums, barriers) go through Gloo, or where the
  // build has no Gloo (gloo_built(); a PyTorch wheel's LibTorch) through NCCL on `gpu`, this
  // rank's GPU.
  void connect(const std::string& gloo_host, std::chrono::milliseconds timeout,
               ReduceBackend backend = ReduceBackend::kGloo, torch::Device gpu = torch::kCPU);

  // Sums each tensor over the ranks, in place; the tensors' reductions run concurrently.
  void all_reduce_sum(std::vector<torch::Tensor>& tensors);
  // Starts summing `tensor` over the ranks in place and returns at once; calling the result
  // waits for the sum (RankLost when a rank is gone); for NCCL the wait orders this thread's
  // CUDA stream after the sum, the host does not block. Every rank must start its reductions
  // in the same order (each group pairs them by their sequence), from one thread at a time.
  using PendingReduction = std::function<void()>;
  PendingReduction start_all_reduce_sum(torch::Tensor& tensor);

  // A stop request inside an update (core/model/stop_point.h) must reach every rank's layers,
  // or the ones not asked would train on while the others wait in the all-reduce: a thread of
  // this rank's own relays `local` (this process's stop flag) through the rendezvous store and
  // sets stop_flag() once any rank asked (within ~kStopRelayPeriod of it). Call once. `local`
  // must outlive the process (the CLI's stop flag): a relay blocked on a frozen rank 0 is let go,
  // not joined, when the group ends.
  void relay_stop(const std::atomic<bool>* local);
  const std::atomic<bool>& stop_flag() const { return relay_->stop; }
  static constexpr std::chrono::milliseconds kStopRelayPeriod{20};

  // What rank 0 hands the others, by key (set once; fetch waits for it up to `wait`).
  void publish(const std::string& key, const std::string& bytes);
  std::string fetch(const std::string& key, std::chrono::milliseconds wait);

 private:
  struct Impl;
  RankGroup(int rank, int world, std::unique_ptr<Impl> impl);
  void connect_nccl(std::chrono::milliseconds timeout);
  void end_relay();
  int rank_, world_;
  // The relay's flags, shared with its thread: one blocked on a frozen rank 0's store is let go
  // at the end (rank_group.cpp), not waited for, and must not outlive what it writes.
  struct RelayFlags {
    std::atomic<bool> stop{false};     // some rank asked to stop
    std::atomic<bool> done{false};     // the group is going: end the relay
    std::atomic<bool> running{false};  // the relay's thread has not returned
  };
  std::shared_ptr<RelayFlags> relay_ = std::make_shared<RelayFlags>();
  std::unique_ptr<Impl> impl_;
};

// A collective that failed: another rank died, hung past the timeout, or left. The run ends
// as a worker crash does (docs/distributed.md), never trains on with fewer ranks.
class RankLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fathom
