#pragma once
// Training batches in epoch order, resumable at (epoch, position): each epoch visits the
// fixed batch plan in an order that depends only on (seed, epoch) (see core/data/batch.h).
#include <cstdint>
#include <future>
#include <vector>

#include "core/data/batch.h"

namespace fathom {

class BatchStream {
 public:
  // `examples` is a handle (its storage is shared, not copied); `plan` must outlive the stream.
  BatchStream(TokenPairs examples, const BatchPlan& plan, std::uint64_t seed, int64_t epoch,
              int64_t position);
  Batch next();
  int64_t epoch() const { return epoch_; }
  int64_t position() const { return position_; }  // next batch index within the epoch

 private:
  TokenPairs examples_;
  const BatchPlan& plan_;
  std::uint64_t seed_;
  int64_t epoch_, position_;
  std::vector<size_t> order_;  // the epoch's permutation of the plan's batches
};

// A BatchStream read one batch ahead on a background thread, so collating (and on CUDA
// pinning the host memory) overlaps the previous update's compute. The batches and their
// order are the wrapped stream's: only one read is ever in flight, and epoch()/position()
// describe the last batch handed out, as BatchStream's do.
class PrefetchingBatchStream {
 public:
  PrefetchingBatchStream(BatchStream stream, torch::Device device);
  ~PrefetchingBatchStream();
  // The next batch, on the device (copied without blocking the host on CUDA).
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
