#include "core/train/batch_stream.h"

#include <stdexcept>

namespace fathom {

BatchStream::BatchStream(TokenPairs examples, const BatchPlan& plan, std::uint64_t seed,
                         int64_t epoch, int64_t position)
    : examples_(std::move(examples)), plan_(plan), seed_(seed), epoch_(epoch), position_(position) {
  if (plan.empty()) throw std::invalid_argument("no training batches");
  order_ = epoch_order(plan_, seed_, epoch_);
}

Batch BatchStream::next() {
  if (position_ >= static_cast<int64_t>(order_.size())) {
    ++epoch_;
    position_ = 0;
    order_ = epoch_order(plan_, seed_, epoch_);
  }
  const std::vector<size_t> ids = plan_.batch(order_[position_++]);
  if (update_.complete()) update_ = UpdateCursor(update_.update_tokens);
  const bool mine = update_.batches % world_ == rank_;
  Batch batch = mine ? collate(examples_, ids, plan_.pad_multiple) : count_only(examples_, ids);
  update_.add(batch.tgt_tokens);
  return batch;
}

void BatchStream::collate_only_rank_share(int64_t update_tokens, int rank, int world) {
  rank_ = rank;
  world_ = world;
  update_ = UpdateCursor(update_tokens);
}

PrefetchingBatchStream::PrefetchingBatchStream(BatchStream stream, torch::Device device)
    : stream_(std::move(stream)),
      device_(device),
      epoch_(stream_.epoch()),
      position_(stream_.position()) {
  fetch();
}

PrefetchingBatchStream::~PrefetchingBatchStream() {
  if (pending_.valid()) pending_.wait();  // the reader uses stream_: let it finish first
}

void PrefetchingBatchStream::fetch() {
  pending_ = std::async(std::launch::async, [this] {
    Fetched f;
    f.batch = stream_.next();
    f.epoch = stream_.epoch();
    f.position = stream_.position();
    if (device_.is_cuda() && f.batch.src.defined()) {  // page-locked: an asynchronous copy
      f.batch.src = f.batch.src.pin_memory();
      f.batch.tgt_in = f.batch.tgt_in.pin_memory();
      f.batch.tgt_out = f.batch.tgt_out.pin_memory();
    }
    return f;
  });
}

Batch PrefetchingBatchStream::next() {
  Fetched f = pending_.get();  // rethrows the reader's exception, if any
  epoch_ = f.epoch;
  position_ = f.position;
  fetch();
  Batch b = std::move(f.batch);
  if (!b.src.defined()) return b;  // another rank's: counted, not trained on here
  const bool non_blocking = device_.is_cuda();
  b.src = b.src.to(device_, non_blocking);
  b.tgt_in = b.tgt_in.to(device_, non_blocking);
  b.tgt_out = b.tgt_out.to(device_, non_blocking);
  return b;
}

}  // namespace fathom
