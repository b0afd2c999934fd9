#pragma once
// A stop request served inside an update (issue 57 item 4): one update of a deep or wide model
// takes tens of seconds, so the trainer lets every layer of a training forward and backward
// check the process's stop flag (ModelHooks::stop, set only around the update's forward and
// backward) and abandon the update with UpdateAbandoned. The trainer turns that into the
// outcome of a stop served before the update (core/train/training_session.h): nothing of the
// abandoned update is applied. The check is one relaxed atomic load per layer in each
// direction (measured: bench/bench_stop_points.cpp).
#include <torch/torch.h>

#include <atomic>
#include <stdexcept>
#include <string>

namespace fathom {

class UpdateAbandoned : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws UpdateAbandoned when `stop` is set; `where`: "forward" or "backward".
inline void throw_if_abandoned(const std::atomic<bool>& stop, const char* where) {
  if (stop.load(std::memory_order_relaxed))
    throw UpdateAbandoned(std::string("update abandoned in its ") + where + " (stop requested)");
}

// A layer's output `state` on its way to the next layer: checked now (the forward), and, when
// it carries a gradient, again when the backward reaches it (a hook on its gradient, which the
// autograd engine rethrows from backward()).
inline torch::Tensor stop_point(const std::atomic<bool>* stop, torch::Tensor state) {
  if (!stop) return state;
  throw_if_abandoned(*stop, "forward");
  if (state.requires_grad())
    state.register_hook([stop](const torch::Tensor&) { throw_if_abandoned(*stop, "backward"); });
  return state;
}

}  // namespace fathom
