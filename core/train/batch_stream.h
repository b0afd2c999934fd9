#pragma once
// Training batches in epoch order, resumable at (epoch, position): each epoch visits the
// fixed batch plan in an order that depends only on (seed, epoch) (see core/data/batch.h).
#include <cstdint>
#include <vector>

#include "core/data/batch.h"

namespace fathom {

class BatchStream {
 public:
  BatchStream(const std::vector<Example>& examples, const BatchPlan& plan, std::uint64_t seed,
              int64_t epoch, int64_t position);
  Batch next();
  int64_t epoch() const { return epoch_; }
  int64_t position() const { return position_; }  // next batch index within the epoch

 private:
  const std::vector<Example>& examples_;
  const BatchPlan& plan_;
  std::uint64_t seed_;
  int64_t epoch_, position_;
  std::vector<std::vector<size_t>> order_;
};

}  // namespace fathom
