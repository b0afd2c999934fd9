#include "experiments/write_lock_watch.h"

#include <algorithm>

namespace fathom::experiments {

void WriteLockWatch::look(const db::Store& store, double now) {
  const auto holder = store.write_lock_holder();
  if (holder && holder == holder_) blocked_at(now);
  holder_ = holder;
}

void WriteLockWatch::blocked_at(double now) { blocked_until_ = std::max(blocked_until_, now); }

}  // namespace fathom::experiments
