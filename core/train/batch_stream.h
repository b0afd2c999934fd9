#pragma once
// Training batches in epoch order, resumable at (epoch, position): each epoch visits the
// fixed batch plan in an order that depends only on (seed, epoch) (see core/data/batch_plan.h).
#include <cstdint>
#include <future>
#include <vector>

#include "core/data/batch.h"

namespace fathom {

// How the update loop groups batches into updates: an update reads batches until it holds
// `update_tokens` target tokens, at least one (every batch an update of its own at 0).
struct UpdateCursor {
  explicit UpdateCursor(int64_t update_tokens) : update_tokens(update_tokens) {}
  void add(int64_t batch_tokens) {
    ++batches;
    tokens += batch_tokens;
  }
  bool complete() const { return batches > 0 && (update_tokens <= 0 || tokens >= update_tokens); }
  int64_t update_tokens;
  int64_t batches = 0, tokens = 0;  // of the update so far
};

class BatchStream {
 public:
  // `examples` is a handle (its storage is shared, not copied); `plan` must outlive the stream.
  BatchStream(TokenPairs examples, const BatchPlan& plan, std::uint64_t seed, int64_t epoch,
              int64_t position);
  Batch next();
  int64_t epoch() const { return epoch_; }
  int64_t position() const { return position_; }  // next batch index within the epoch

  // Rank `rank` of a `world`-rank data-parallel run trains on every world-th batch of each
  // update (batches_of_rank): from here, which must be an update's start, the others come
  // uncollated (count_only: ids and token counts, no tensors). Their order is unchanged.
  void collate_only_rank_share(int64_t update_tokens, int rank, int world);

 private:
  TokenPairs examples_;
  const BatchPlan& plan_;
  std::uint64_t seed_;
  int64_t epoch_, position_;
  std::vector<size_t> order_;  // the epoch's permutation of the plan's batches
  int rank_ = 0, world_ = 1;
  UpdateCursor update_{0};
};

// A BatchStream read one batch ahead on a background thread, so collating (and on CUDA
// pinning the host memory) overlaps the previous update's compute. The batches and their
// order are the wrapped stream's: only one read is ever in flight, and epoch()/position()
// describe the last batch handed out, as BatchStream's do.
class PrefetchingBatchStream {
 public:
  PrefetchingBatchStream(BatchStream stream, torch::Device device);
  ~PrefetchingBatchStream();
  // The next batch, on the device (copied without blocking the host on CUDA); another rank's
  // (BatchStream::collate_only_rank_share) without tensors.
  Batch next();
  int64_t epoch() const { return epoch_; }
  int64_t position() const { return position_; }

 private:
  struct Fetched {
    Batch batch;
    int64_t epoch = 0, position = 0;  // the stream's position after this batch
  };
  void fetch();
  BatchStream stream_;
  torch::Device device_;
  std::future<Fetched> pending_;
  int64_t epoch_, position_;
};

}  // namespace fathom
