#include "core/train/batch_stream.h"

#include <stdexcept>

namespace fathom {

BatchStream::BatchStream(const std::vector<Example>& examples, const BatchPlan& plan,
                         std::uint64_t seed, int64_t epoch, int64_t position)
    : examples_(examples), plan_(plan), seed_(seed), epoch_(epoch), position_(position) {
  if (plan.batches.empty()) throw std::invalid_argument("no training batches");
  order_ = epoch_batches(plan_, seed_, epoch_);
}

Batch BatchStream::next() {
  if (position_ >= static_cast<int64_t>(order_.size())) {
    ++epoch_;
    position_ = 0;
    order_ = epoch_batches(plan_, seed_, epoch_);
  }
  return collate(examples_, order_[position_++]);
}

}  // namespace fathom
