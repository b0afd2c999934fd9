#pragma once
// Data parallelism's one exchange per update (methods.md s9.1): after each rank's backward over
// its share of the update's batches, the gradients are summed over the ranks, so every rank holds
// the gradient one process would have computed over the whole update and takes the same step.
// With them go the update's loss sums (so the logged loss and the divergence rule see the whole
// update) and each rank's stop request (so every rank stops at the same update boundary), and
// whether it abandoned the update for one (so every rank discards it).
//
// Gradients travel in flat buckets, one all-reduce each, run concurrently. A rank accumulates
// several batches per update, so a gradient is final only in the backward of its last batch:
// there (start_overlap), each parameter's gradient accumulator reports when it has run, and a
// bucket's all-reduce starts once all its parameters' have -- while the backward goes on
// through the layers below (overlap, as torch's DistributedDataParallel does it). The buckets
// hold the parameters last to first, the order in which the backward finishes them, and start
// strictly in that order on every rank (Gloo pairs reductions by their sequence).
#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/data/token_pairs.h"
#include "core/train/rank_group.h"

namespace torch::autograd {
struct Node;
}

namespace fathom {

class GradientReducer {
 public:
  struct Options {
    int64_t bucket_bytes = int64_t{25} << 20;  // the most bytes of gradient one all-reduce carries
    bool overlap = true;  // start buckets during the last backward (false: all after it)
  };
  GradientReducer(RankGroup& group, std::vector<torch::Tensor> parameters, Options options);
  ~GradientReducer();  // removes the accumulators' hooks
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Call just before the backward of this rank's last batch of the update: from then on a
  // bucket's all-reduce starts as soon as its gradients are final. Does nothing without
  // overlap; the next reduce() ends it.
  void start_overlap();

  struct Totals {
    double smoothed = 0, nll = 0;  // the update's loss sums over every rank's batches
    bool stop = false;             // some rank was asked to stop
    bool abandoned = false;        // some rank abandoned the update (every rank discards it)
    // train.noise_scale: the sums of the ranks' batch readings (core/train/noise_scale_monitor.h)
    double noise_sq = 0, noise_inverse_tokens = 0, noise_readings = 0;
  };
  // Sums the parameters' .grad() over the ranks in place (starting the buckets the backward
  // has not started, then waiting for all). A parameter without a gradient on some ranks (one
  // that had no batch this update) counts as zero there; one without a gradient on every rank
  // keeps none, as in one process. `smoothed`/`nll`: this rank's loss sums (float64 scalars on
  // the parameters' device, or undefined for none).
  // `abandoned`: this rank's forward or backward was cut short by a stop request
  // (core/model/stop_point.h); its gradients are partial, and the sums then only carry the
  // news, so that no rank waits for another in an all-reduce until the timeout.
  // `noise`: this rank's noise-scale readings (3 float64 on the device; undefined: none).
  Totals reduce(const torch::Tensor& smoothed, const torch::Tensor& nll, bool stop,
                bool abandoned = false, const torch::Tensor& noise = {});

  // Wall time of the last reduce(): what the update waited for after its backward.
  double last_seconds() const { return last_seconds_; }
  // How long buckets were already reducing while the last backward ran (0 without overlap).
  double last_overlap_seconds() const { return last_overlap_seconds_; }
  size_t bucket_count() const { return buckets_.size(); }
  bool overlaps() const { return overlap_; }

 private:
  using Clock = std::chrono::steady_clock;
  void on_gradient_final(size_t parameter);  // a gradient accumulator's post hook
  void launch_ready_buckets();               // the next buckets whose gradients are all final
  void launch(size_t bucket);
  torch::Tensor flatten(size_t bucket) const;
  void reduce_all_again();  // after a gradient changed past its bucket's start

  RankGroup& group_;
  std::vector<torch::Tensor> parameters_;
  std::vector<std::vector<size_t>> buckets_;  // parameter indices, last parameters first
  std::vector<size_t> bucket_of_;             // per parameter
  std::vector<size_t> hooked_in_bucket_;      // per bucket: parameters whose accumulator reports
  std::vector<std::shared_ptr<torch::autograd::Node>>
      accumulators_;  // kept alive: they hold the hooks
  std::vector<std::uintptr_t> hook_keys_;
  bool overlap_;

  // The update's reduction; the backward's hooks and reduce() share it.
  std::mutex mutex_;
  bool armed_ = false;
  bool late_ = false;        // a gradient changed after its bucket started (a second accumulation)
  std::vector<bool> final_;  // per parameter: its accumulator ran in the last backward
  std::vector<size_t> missing_;  // per bucket: hooked parameters not yet final
  size_t launched_ = 0;          // buckets started: always a prefix of buckets_
  std::vector<torch::Tensor> flat_;
  std::vector<RankGroup::PendingReduction> pending_;
  std::optional<Clock::time_point> first_launch_;

  double last_seconds_ = 0, last_overlap_seconds_ = 0;
};

// Which of an update's `batches` (in stream order) rank `rank` of `world` trains on: every
// world-th one, starting at its rank -- so ranks read the same stream and no batch is missed.
std::vector<size_t> batches_of_rank(size_t batches, int rank, int world);

// When an update of `update_tokens` target tokens takes, on average over the plan's batches, a
// number of batches that `world` does not divide, the ranks' shares differ every update and
// the lighter ones wait: a note saying so and what to give instead; "" when balanced.
std::string rank_balance_note(const TokenPairs& examples, const BatchPlan& plan,
                              int64_t update_tokens, int world);

}  // namespace fathom
