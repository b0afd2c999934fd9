#pragma once
// Data parallelism's one exchange per update (methods.md s9.1): after each rank's backward over
// its share of the update's batches, the gradients are summed over the ranks, so every rank holds
// the gradient one process would have computed over the whole update and takes the same step.
// With them go the update's loss sums (so the logged loss and the divergence rule see the whole
// update) and each rank's stop request (so every rank stops at the same update boundary), and
// whether it abandoned the update for one (so every rank discards it).
//
// Gradients travel in flat buckets (one all-reduce each, run concurrently), after the backward:
// a rank accumulates several batches per update, so a gradient is final only after its last one.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/data/batch.h"
#include "core/data/token_pairs.h"

namespace fathom {

class RankGroup;

class GradientReducer {
 public:
  // `bucket_bytes`: the most bytes of gradient one all-reduce carries.
  GradientReducer(RankGroup& group, std::vector<torch::Tensor> parameters,
                  int64_t bucket_bytes = 25 << 20);

  struct Totals {
    double smoothed = 0, nll = 0;  // the update's loss sums over every rank's batches
    bool stop = false;             // some rank was asked to stop
    bool abandoned = false;        // some rank abandoned the update (every rank discards it)
  };
  // Sums the parameters' .grad() over the ranks in place. A parameter without a gradient on
  // some ranks (one that had no batch this update) counts as zero there; one without a gradient
  // on every rank keeps none, as in one process. `smoothed`/`nll`: this rank's loss sums
  // (float64 scalars on the parameters' device, or undefined for none).
  // `abandoned`: this rank's forward or backward was cut short by a stop request
  // (core/model/stop_point.h); its gradients are partial, and the sums then only carry the
  // news, so that no rank waits for another in an all-reduce until the timeout.
  Totals reduce(const torch::Tensor& smoothed, const torch::Tensor& nll, bool stop,
                bool abandoned = false);

  double last_seconds() const { return last_seconds_; }  // wall time of the last reduce

 private:
  RankGroup& group_;
  std::vector<torch::Tensor> parameters_;
  std::vector<std::vector<size_t>> buckets_;  // parameter indices per bucket (one dtype each)
  double last_seconds_ = 0;
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
