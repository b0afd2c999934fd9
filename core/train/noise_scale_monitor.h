#pragma once
// train.noise_scale: the gradient noise scale B_simple over training, from the gradients an
// update computes anyway (base/metrics/noise_scale_window.h; methods.md s5.12). The small
// gradients: each batch of the update, read after its backward as the difference between the
// accumulated gradient and the one before it (an update of one batch in one process gives no
// reading); in a data-parallel run every rank reads its own batches and the readings are summed
// over the ranks in the reduction. Their mean squared norm against their mean 1 / B is the
// small equation -- the within-update scatter, in which the mean gradient's cross term cancels,
// so an update of K batches reads the trace with about K times less variance than its first
// batch alone. The big gradient: the update's, whose norm the clipping takes anyway. The cost:
// a norm, a subtraction and a copy over the gradients per batch, and one gradient-sized buffer.
//
// Nothing is read from the device but at window(): per update, the two estimates are made and
// summed on the device, as DeviceMetrics does with the losses.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "base/metrics/noise_scale_window.h"

namespace fathom {

class NoiseScaleMonitor {
 public:
  // world: the run's processes (1: one process, or a one-rank group).
  NoiseScaleMonitor(std::vector<torch::Tensor> parameters, torch::Device device, int world = 1);

  // Before an update's first forward: its target tokens (every rank's), and the loss scale its
  // backward multiplies by (1 without loss scaling).
  void begin_update(int64_t update_tokens, double loss_scale);
  // After the backward of the position-th of this process's `count` batches of the update
  // (`tokens` target tokens): that batch's own gradient is one small reading.
  void after_batch(size_t position, size_t count, int64_t tokens);
  // A rank's readings for the ranks' reduction, float64 on the device: [sum of its batches'
  // |g_k|^2, sum of their 1 / B_k, their count], zeros for a rank without a batch this update;
  // undefined in a world of one.
  torch::Tensor share_reading() const;
  // The reduction's sums of every rank's share_reading() (nothing in a world of one).
  void set_ranks_reading(double sq_sum, double inverse_tokens_sum, double readings);
  // Closes the update with its gradient's norm before clipping. An update without a small
  // gradient, or whose small gradient is the whole update, adds nothing.
  void end_update(const torch::Tensor& grad_norm);

  // The window's sums (one transfer), and a new window.
  NoiseScaleWindow window() const;
  void reset();
  // A resumed run continues its checkpoint's window.
  void restore(const NoiseScaleWindow& window);

 private:
  // |this batch's share of .grad|^2 (float64 scalar); keeps .grad for the next batch's.
  torch::Tensor batch_squared_norm(bool keep);
  std::vector<torch::Tensor> parameters_;
  torch::Device device_;
  int world_;
  double update_tokens_ = 0, loss_scale_ = 1;
  std::vector<torch::Tensor> before_;  // .grad after the previous batch, per parameter
  std::vector<bool> before_held_;      // before_[i] holds this update's previous .grad
  torch::Tensor small_sq_;             // sum of the readings' |g_k|^2; undefined: none yet
  double small_inv_tokens_ = 0;        // sum of their 1 / B_k
  double small_readings_ = 0;
  torch::Tensor sums_;  // [sum tr, sum tr^2, sum |G|^2, sum (|G|^2)^2]
  int64_t updates_ = 0;
};

}  // namespace fathom
