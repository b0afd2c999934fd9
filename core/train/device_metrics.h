#pragma once
// The training metrics of the update loop, kept on the device so that an update never waits
// for it: per-update loss sums, the sums of the current log window, and the divergence rule
// of core/train/divergence.h evaluated as device-side flags that remember the first update
// that broke it (with its loss and gradient norm). read() brings everything to the host in
// one transfer; the trainer calls it only at log, validation and checkpoint points.
//
// The arithmetic is the host loop's, in float64 on the device and in the same order (float32
// batch sums widened to double and added; loss = sum / tokens), so the logged values are
// bit-identical to reading every update with .item().
#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/train/loss.h"

namespace fathom {

class DeviceMetrics {
 public:
  // first_loss: the divergence reference of a resumed run (NaN: the first update sets it).
  DeviceMetrics(torch::Device device, double divergence_factor, double first_loss);

  // One batch of the current update.
  void add_batch(const LossSums& sums);
  // Closes the update: its loss is the batch sums / tokens. grad_norm is undefined for an
  // update the loss scaler skipped (its gradient is not checked and not averaged).
  void end_update(int64_t update, int64_t tokens, const torch::Tensor& grad_norm);

  struct Reading {
    double smoothed = 0, nll = 0;            // window sums (divide by the window's tokens)
    double grad_norm = 0;                    // window sum over the updates with a gradient norm
    double first_loss = NAN;                 // divergence reference
    std::optional<int64_t> diverged_update;  // the first update that broke the rule
    double diverged_loss = NAN, diverged_grad_norm = NAN;
    std::string reason;  // why it diverged (DivergenceMonitor's wording)
  };
  // One device-to-host read. reset_window: start a new log window afterwards.
  Reading read(bool reset_window);
  // A resumed run continues the log window its checkpoint was taken in (the sums of a
  // Reading), so the next logged values equal the uninterrupted run's.
  void restore_window(double smoothed, double nll, double grad_norm);

 private:
  torch::Tensor scalar(double value) const;
  torch::Device device_;
  double factor_;
  torch::Tensor update_smoothed_, update_nll_;  // this update (float64)
  torch::Tensor window_smoothed_, window_nll_, window_grad_norm_;
  torch::Tensor first_loss_, diverged_update_, diverged_loss_, diverged_grad_norm_;
};

}  // namespace fathom
